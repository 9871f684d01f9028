// Validates answers against the OpenAPI document the server itself serves.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import Ajv2020 from 'ajv/dist/2020.js';
import { parse } from 'yaml';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> };

export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly templates: { template: string; re: RegExp }[];
  constructor(readonly doc: Doc) {
    this.ajv.addSchema(doc as object, 'openapi');
    this.templates = Object.keys(doc.paths).map((template) => ({
      template,
      re: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
    }));
  }

  static async fetch(baseUrl: string): Promise<Contract> {
    const res = await fetch(`${baseUrl}/openapi.yaml`);
    return new Contract(parsedDocument(await res.text()));
  }

  /** The documented path template for a concrete path (literal segments win over {params}). */
  templateFor(path: string): string | undefined {
    const matches = this.templates.filter((t) => t.re.test(path));
    matches.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
    return matches[0]?.template;
  }

  /** Throws with a readable message when the answer is not what the document promises. */
  check(method: string, path: string, status: number, body: unknown): void {
    const template = this.templateFor(path);
    if (!template) {
      // Undocumented paths may only ever answer with the error envelope.
      const validate = this.ajv.getSchema('openapi#/components/schemas/ErrorEnvelope') ?? this.ajv.compile({ $ref: 'openapi#/components/schemas/ErrorEnvelope' });
      if (status < 400 || !validate(body)) throw new Error(`contract: ${method} ${path} is not documented but answered ${status}`);
      return;
    }
    const op = this.doc.paths[template]?.[method.toLowerCase()];
    if (!op) throw new Error(`contract: ${method} ${template} is not documented`);
    const response = op.responses[String(status)];
    if (!response) throw new Error(`contract: ${method} ${template} answered ${status}, which is not documented (documented: ${Object.keys(op.responses).join(', ')})`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return;
    const pointer = `openapi#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
    const validate = this.ajv.getSchema(pointer) ?? this.ajv.compile({ $ref: pointer });
    if (!validate(body)) {
      throw new Error(`contract: ${method} ${path} ${status} does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    }
  }
}

/**
 * The served YAML parsed, once per distinct text in a run. Parsing its 3.6 MB took the yaml
 * library 3.6-4.2 s under load 12 (the document is fixed by the routes, so every server of a run
 * serves the same text), and nearly every test file parsed it again, once per client made without
 * a contract. Kept by the text's hash in this process, and as JSON (JSON.parse: tens of ms) in the
 * run's directory for the other workers (CABINET_TEST_RUN_DIR, set by tmp-root.setup.ts), when
 * the JSON reads back as the same document.
 */
const parsed = new Map<string, Doc>();
function parsedDocument(yaml: string): Doc {
  const hash = createHash('sha256').update(yaml).digest('hex');
  const held = parsed.get(hash);
  if (held) return held;
  const dir = process.env.CABINET_TEST_RUN_DIR;
  const file = dir ? join(dir, 'openapi-cache', `${hash}.json`) : undefined;
  let doc: Doc | undefined;
  if (file && existsSync(file)) doc = JSON.parse(readFileSync(file, 'utf8')) as Doc;
  if (!doc) {
    doc = parse(yaml) as Doc;
    const json = JSON.stringify(doc);
    if (file && isDeepStrictEqual(JSON.parse(json), doc)) {
      mkdirSync(join(file, '..'), { recursive: true });
      // Written whole, then renamed: another worker reads either nothing or all of it.
      const part = `${file}.${process.pid}.part`;
      writeFileSync(part, json);
      renameSync(part, file);
    }
  }
  parsed.set(hash, doc);
  return doc;
}
