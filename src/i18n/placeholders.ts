// The arguments a message uses, read with the ICU parser intl-messageformat itself uses, so that
// a plural's branches ("{n, plural, one {# bird} ...}") are not taken for arguments.
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';

function walk(elements: MessageFormatElement[], into: Set<string>): void {
  for (const el of elements) {
    if (el.type === TYPE.literal || el.type === TYPE.pound) continue;
    if (el.type === TYPE.tag) { walk(el.children, into); continue; }
    into.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select) for (const opt of Object.values(el.options)) walk(opt.value, into);
  }
}

/** The message's argument names, sorted; throws when the message is not valid ICU MessageFormat. */
export function messageArguments(message: string): string[] {
  const names = new Set<string>();
  walk(parse(message, { ignoreTag: true }), names);
  return [...names].sort();
}
