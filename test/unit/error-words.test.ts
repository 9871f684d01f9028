// The box's errors in the reader's language (src/ui/src/lib/error-words.ts): an error code in
// words, the server's message where the code's words need it (and alone for a code the shell does
// not know), each field issue of a validation error from its reason and parameters, in English,
// Russian and Spanish; the box's own texts (boxText) of an alarm in each language.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { boxText, setLanguage } from '../../src/ui/src/lib/i18n.js';
import { ApiError, describeError } from '../../src/ui/src/lib/api.js';
import { errorText, issueText } from '../../src/ui/src/lib/error-words.js';

// The shell's language store reads catalogues from the box and sets <html lang>: here the box is a
// stub answering the shipped catalogues, and the document a bare element.
beforeAll(() => {
  vi.stubGlobal('document', { documentElement: { lang: 'en' } });
  vi.stubGlobal('fetch', async (url: string) => {
    const lang = /\/app\/i18n\/([a-z]{2})\.json$/.exec(url)?.[1] as keyof typeof BUILT_IN | undefined;
    const body = lang ? BUILT_IN[lang] : undefined;
    return body ? new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }) : new Response('{}', { status: 404 });
  });
});
afterAll(() => vi.unstubAllGlobals());

const reading = async (lang: string) => expect(await setLanguage(lang)).toBe(true);
const validation = (details: ApiError['details']) => new ApiError(400, 'validation_error', 'invalid body: target_c (out_of_range)', details);

describe('errorText', () => {
  it('English: the code in words; the server\'s message after words that need it; alone for an unknown code', async () => {
    await reading('en');
    expect(errorText(new ApiError(403, 'rbac_forbidden', 'role operator lacks alarms.ack'))).toBe('Your role may not do this.');
    expect(errorText(new ApiError(409, 'alarm_already_acknowledged', 'alarm 0190a0b0-0000-7000-8000-000000000001 was already acknowledged by op-b'))).toBe('This alarm was already acknowledged by someone else; their acknowledgement is kept.');
    expect(errorText(new ApiError(0, 'offline', 'network'))).toMatch(/^The box does not answer \(or the network is down\)\./);
    // The ids mean nothing at the tablet: they are left out of the server's message.
    expect(errorText(new ApiError(409, 'lifecycle_conflict', 'house 0190a0b0-0000-7000-8000-000000000001 is occupied'))).toBe('This is not possible in its current state. (House is occupied)');
    expect(errorText(new ApiError(418, 'teapot_refused', 'the teapot said no'))).toBe('The teapot said no');
    expect(describeError(new ApiError(401, 'auth_required', 'token expired'))).toBe('Your session has ended. Please log in again.');
  });

  it('a validation error: each field issue in words, with its limits, choices and format', async () => {
    await reading('en');
    const err = validation([
      { field: 'target_c', reason: 'out_of_range', min: 10, max: 35 },
      { field: 'severity', reason: 'unsupported_value', allowed: ['high', 'low'] },
      { field: 'name', reason: 'required' },
    ]);
    expect(errorText(err)).toBe('3 values were not accepted: target_c: must be from 10 to 35; severity: choose one of: high, low; name: required');
    expect(errorText(validation([{ field: 'body', reason: 'malformed_json' }]))).toBe('One value was not accepted: request: could not be read');
  });

  it('Russian and Spanish: the same codes and issues in the reader\'s words, numbers as they write them', async () => {
    await reading('ru');
    expect(errorText(new ApiError(403, 'rbac_forbidden', 'role operator lacks alarms.ack'))).toBe('Вашей роли это не разрешено.');
    expect(errorText(validation([{ field: 'target_c', reason: 'out_of_range', min: 10.5, max: 35 }, { field: 'title', reason: 'out_of_range', max_length: 500 }])))
      .toBe('Не приняты 2 значения: target_c: должно быть от 10,5 до 35; title: не больше 500 символов');
    await reading('es');
    expect(errorText(new ApiError(429, 'rate_limited', 'too many attempts'))).toBe('Demasiados intentos: espere unos minutos.');
    expect(errorText(validation([{ field: 'email', reason: 'invalid_format', format: 'email' }]))).toBe('No se aceptó 1 valor: email: no es una dirección de correo');
    await reading('en');
  });
});

describe('issueText', () => {
  it('one issue without its field\'s name (a form shows it beside the field), in each language', async () => {
    await reading('en');
    expect(issueText({ field: 'target_c', reason: 'out_of_range', min: 10 })).toBe('must be at least 10');
    expect(issueText({ field: 'target_c', reason: 'out_of_range', max: 35 })).toBe('must be at most 35');
    expect(issueText({ field: 'name', reason: 'out_of_range', min_length: 1 })).toBe('needs at least 1 character');
    expect(issueText({ field: 'list', reason: 'out_of_range', max_items: 5 })).toBe('at most 5 entries');
    expect(issueText({ field: 'n', reason: 'invalid_type', expected: 'integer' })).toBe('must be a whole number');
    expect(issueText({ field: 'x', reason: 'unknown_field' })).toBe('not a known field');
    // A check over several fields says it in its own message; an unknown reason reads as itself.
    expect(issueText({ field: 'to', reason: 'invalid_value', message: 'to must be after from' })).toBe('to must be after from');
    expect(issueText({ field: 'x', reason: 'some_new_reason' })).toBe('some new reason');
    expect(issueText({})).toBe('not a valid value');
    await reading('ru');
    expect(issueText({ field: 'name', reason: 'required' })).toBe('обязательное поле');
    expect(issueText({ field: 'temp', reason: 'out_of_range', min: 1.5 })).toBe('должно быть не меньше 1,5');
    await reading('es');
    expect(issueText({ field: 'kind', reason: 'unsupported_value', allowed: ['a', 'b'] })).toBe('elija una de: a, b');
    await reading('en');
  });
});

describe('the box\'s own texts in the reader\'s language (boxText)', () => {
  const params = { industry: 'poultry', unit: '2', controller: 'ctl-2', misses: 5 };
  it('a comm loss alarm reads in each language; an unknown key or none keeps the English the box stored', async () => {
    await reading('ru');
    expect(boxText('box.comm_loss.controller.title', params, 'House 2 controller not answering')).toBe('Корпус 2: контроллер не отвечает');
    expect(boxText('box.comm_loss.controller.message', params, '')).toBe('Блок не смог прочитать контроллер ctl-2 5 раз подряд — проверьте его питание и кабель');
    expect(boxText(null, null, 'House 4: door left open')).toBe('House 4: door left open');
    expect(boxText('box.not_a_key', params, 'the English')).toBe('the English');
    await reading('es');
    expect(boxText('box.comm_loss.controller.title', params, 'House 2 controller not answering')).toBe('Nave 2: el controlador no responde');
    await reading('en');
    expect(boxText('box.comm_loss.controller.title', params, 'x')).toBe('House 2 controller not answering');
  });
});
