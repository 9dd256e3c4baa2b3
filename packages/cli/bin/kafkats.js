#!/usr/bin/env node
// The `kafkats` command: everything lives in the built package; this only hands it argv.
import { main } from '../dist/index.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Sockets and readers are closed by then; an unref'd timer ends a process something still
// holds open (a late timer in a library) without cutting short output still being flushed.
setTimeout(() => process.exit(code), 2000).unref();
