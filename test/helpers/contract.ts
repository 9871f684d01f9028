// Validates answers against the OpenAPI document the server itself serves.
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
    return new Contract(parse(await res.text()) as Doc);
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
