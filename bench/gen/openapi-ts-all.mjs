// The alternative's side of bench:gen, run as its own process like `manifold gen`: openapi-typescript's
// node API (types only) over every <component>/openapi.json under argv[2], writing <component>.ts under argv[3].
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { astToString, openapiTS } from "openapi-typescript-ts5";

const [from, to] = process.argv.slice(2);
await mkdir(to, { recursive: true });
let count = 0;
for (const entry of (await readdir(from, { withFileTypes: true }))
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort()) {
  const text = await readFile(join(from, entry, "openapi.json"), "utf8").catch(() => undefined);
  if (text === undefined) continue;
  await writeFile(join(to, `${entry}.ts`), astToString(await openapiTS(JSON.parse(text))));
  count++;
}
process.stdout.write(`${count}\n`);
