#!/usr/bin/env node
// The `kafkats` command: everything lives in the built package; this only hands it argv.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/index.js', import.meta.url);
if (!existsSync(entry)) {
  // In a clone of the repository before a build: say so instead of a module stack trace.
  process.stderr.write(
    'kafkats: @kafkats/cli is not built; run `npm run build` (or `npm start`) first\n',
  );
  process.exit(9);
}
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
process.exitCode = code;
// Sockets and readers are closed by then; an unref'd timer ends a process something still
// holds open (a late timer in a library) without cutting short output still being flushed.
setTimeout(() => process.exit(code), 2000).unref();
