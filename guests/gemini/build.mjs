// Builds the Gemini adapter component: node build.mjs OUT_DIR  →  OUT_DIR/gemini.wasm
//
// Calls componentize-js's `componentize()` directly (jco 1.35's `jco componentize` command cannot
// read files from its sandbox). The `http` and `fetch-event` features are disabled: otherwise the
// component imports wasi:http, which dsh-host does not offer (it refuses such a guest at load).
import { componentize } from '@bytecodealliance/componentize-js';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node build.mjs OUT_DIR');
  process.exit(2);
}
const { component } = await componentize({
  sourcePath: join(here, 'src', 'component.js'),
  // dsh:llm@0.1.0 on purpose: this guest proves that 0.1 guests keep loading and working.
  witPath: resolve(here, '..', '..', 'wit', '0.1.0'),
  worldName: 'provider-adapter',
  disableFeatures: ['http', 'fetch-event'],
});
await mkdir(outDir, { recursive: true });
const out = join(resolve(outDir), 'gemini.wasm');
const tmp = `${out}.tmp${process.pid}`;
await writeFile(tmp, component);
await rename(tmp, out);
console.log(`built ${out} (${component.length} bytes)`);
