// Builds the component: node build.mjs  →  {{name}}.wasm (world {{world}} of wit/0.2.0, dsh:llm@0.2.0).
//
// Calls componentize-js's `componentize()` (pinned in package.json; npm install first). The `http`
// and `fetch-event` features are disabled: otherwise the component imports wasi:http, which
// dsh-host does not offer (it refuses such a guest at load).
import { componentize } from '@bytecodealliance/componentize-js';
import { rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { component } = await componentize({
  sourcePath: join(here, 'src', 'component.js'),
  witPath: join(here, 'wit', '0.2.0'),
  worldName: '{{world}}',
  disableFeatures: ['http', 'fetch-event'],
});
const out = join(here, '{{name}}.wasm');
const tmp = `${out}.tmp${process.pid}`;
await writeFile(tmp, component);
await rename(tmp, out);
console.log(`built ${out} (${component.length} bytes)`);
