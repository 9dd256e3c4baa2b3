// Prints the runtime executing it (as scripts/runtime-guard.mjs tells them apart): the smoke test
// spawns it exactly as it spawns the `kafkats` binary, to show that the binary runs there too.
process.stdout.write(globalThis.Deno ? 'deno' : process.versions.bun ? 'bun' : 'node');
