// `cabinet rpc --file req.json` (or the request on stdin): sends one request to a running
// service, for commissioning. Exit codes: 0 executed, 1 refused or failed, 2 usage/transport error.
// node:fs/promises is taken when the command runs: src/field/index.ts re-exports this file, and
// the service's start loads that index (an import here loaded fs/promises at every restart).

export interface RpcCliOptions {
  url: string;
  token?: string;
  /** Defaults to process.stdin / stdout / stderr; tests inject their own. */
  stdin?: NodeJS.ReadableStream;
  out?: (text: string) => void;
  err?: (text: string) => void;
  timeoutMs?: number;
}

const USAGE = 'usage: cabinet rpc [--file req.json] [--url http://127.0.0.1:8081/api/rpc] [--token TOKEN]  (request on stdin without --file)';

export async function runRpcCli(argv: string[], opts: RpcCliOptions): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(`${t}\n`));
  const err = opts.err ?? ((t: string) => process.stderr.write(`${t}\n`));
  let file: string | undefined;
  let url = opts.url;
  let token = opts.token;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = (): string | undefined => argv[++i];
    if (a === '--file' || a === '-f') file = next();
    else if (a === '--url') url = next() ?? url;
    else if (a === '--token') token = next();
    else if (a === '--help' || a === '-h') {
      out(USAGE);
      return 0;
    } else {
      err(`unknown argument: ${a}\n${USAGE}`);
      return 2;
    }
  }
  let text: string;
  try {
    text = file && file !== '-' ? await process.getBuiltinModule('node:fs/promises').readFile(file, 'utf8') : await readAll(opts.stdin ?? process.stdin);
  } catch (e) {
    err(`cannot read request: ${(e as Error).message}`);
    return 2;
  }
  try {
    JSON.parse(text);
  } catch {
    err('request is not valid JSON');
    return 2;
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: text,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000),
    });
  } catch (e) {
    err(`cannot reach ${url}: ${(e as Error).message}`);
    return 2;
  }
  const body = await res.text();
  let pretty = body;
  try {
    pretty = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    /* not JSON: print as received */
  }
  (res.ok ? out : err)(`HTTP ${res.status} ${res.headers.get('x-correlation-id') ?? ''}`.trim());
  (res.ok ? out : err)(pretty);
  return res.ok ? 0 : 1;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
