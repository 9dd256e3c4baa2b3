#!/usr/bin/env node
// What a program pays for importing a few names from @kafkats/codec: bundles
// `import { <names> } from '@kafkats/codec'` with esbuild (minified, ESM, platform node) and
// prints the bundle's size and how many generated message modules went into it.
//
//   node packages/codec/scripts/bundle-size.mjs [--from dist|src] [--json] [name ...]
//
// Default name: encodeMetadataRequest. `--from dist` (default) bundles the built package as a
// user gets it; `--from src` bundles the TypeScript sources (no build needed; the unit test
// uses it). `--json` prints one JSON object instead of the human line.
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const codec = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @param {string[]} names exported names to import
 * @param {'dist' | 'src'} from which tree to bundle
 * @returns {Promise<{ names: string[], from: string, bytes: number, modules: number, messageModules: string[] }>}
 */
export async function bundleSize(names, from) {
  const entry = from === 'src' ? './src/index.ts' : './dist/index.js';
  const result = await build({
    stdin: {
      contents: `import { ${names.join(', ')} } from '${entry}';\nconsole.log(${names.join(', ')});\n`,
      resolveDir: codec,
      loader: 'js',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  // Modules that put at least one byte into the bundle (the metafile's inputs also list the
  // modules esbuild read and then shook out entirely).
  const [output] = Object.values(result.metafile.outputs);
  const inputs = Object.entries(output.inputs)
    .filter(([, v]) => v.bytesInOutput > 0)
    .map(([p]) => relative(codec, join(process.cwd(), p)));
  return {
    names,
    from,
    bytes: result.outputFiles[0].contents.byteLength,
    modules: inputs.length,
    messageModules: inputs.filter((p) => /\/gen\/messages\//.test(p)).sort(),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const fromAt = args.indexOf('--from');
  const from = fromAt >= 0 ? args[fromAt + 1] : 'dist';
  if (from !== 'dist' && from !== 'src') throw new Error(`--from dist|src, not ${from}`);
  const names = args.filter((a, i) => !a.startsWith('--') && (fromAt < 0 || i !== fromAt + 1));
  const r = await bundleSize(names.length > 0 ? names : ['encodeMetadataRequest'], from);
  if (json) process.stdout.write(`${JSON.stringify(r)}\n`);
  else {
    process.stdout.write(
      `bundle of { ${r.names.join(', ')} } from @kafkats/codec (${from}, esbuild --minify): ` +
        `${r.bytes} bytes, ${r.modules} modules, ${r.messageModules.length} generated message modules\n`,
    );
  }
}
