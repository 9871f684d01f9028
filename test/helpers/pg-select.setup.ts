// Vitest global setup: chooses the PostgreSQL the suite's PostgreSQL variant uses, once, before
// the workers start (they inherit the environment), and says which in one line.
import { choosePostgres } from './server.js';

export default async function setup(): Promise<void> {
  const { url, line } = await choosePostgres();
  if (url) process.env.CABINET_TEST_PG_URL = url;
  else delete process.env.CABINET_TEST_PG_URL;
  process.env.CABINET_TEST_PG_LINE = line;
  process.stdout.write(`${line}\n`);
}
