// Writes the OpenAPI document as YAML, for the build to embed in the executable: the document is
// fixed by the binary's routes, and turning its 2 MB into YAML takes the yaml library about a
// second, which the box should not spend on its event loop at the first GET /openapi.yaml.
//   npx tsx scripts/openapi-yaml.ts <out file>
import { writeFileSync } from 'node:fs';
import { openapiDocumentYaml } from '../src/server.js';

const out = process.argv[2];
if (!out) throw new Error('usage: tsx scripts/openapi-yaml.ts <out file>');
writeFileSync(out, await openapiDocumentYaml());
