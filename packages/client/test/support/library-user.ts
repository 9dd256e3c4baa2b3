// Runs a script from test/fixtures/library-user as a new user would: `node script.mjs` (an ES
// module), or the same code as a CommonJS script. The CommonJS form is derived from the ES
// module mechanically: each `import { a, b } from 'pkg';` becomes
// `const { a, b } = await import('pkg');` and the body runs in an async function that nothing
// awaits, as a CommonJS file must. The script reads its inputs from the environment.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LIBRARY_USER = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'library-user',
);

export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CommonJS twin of an ES-module fixture (see the file comment). */
export function asCommonJs(source: string): string {
  const body = source.replace(
    /^import\s*\{([^}]*)\}\s*from\s*'([^']+)';$/gm,
    (_, names: string, from: string) => `const {${names}} = await import('${from}');`,
  );
  if (/^import\s/m.test(body))
    throw new Error('asCommonJs: only `import { ... } from` is converted');
  return `'use strict';\n(async () => {\n${body}\n})();\n`;
}

/**
 * Runs `script` (a file name in test/fixtures/library-user) with `env` added to the
 * environment, as an ES module or as its CommonJS twin; resolves when the process exits.
 */
export function runUserScript(
  script: string,
  env: Readonly<Record<string, string>>,
  form: 'esm' | 'cjs' = 'esm',
): Promise<ScriptRun> {
  const args =
    form === 'esm'
      ? [join(LIBRARY_USER, script)]
      : [
          '--input-type=commonjs',
          '-e',
          asCommonJs(readFileSync(join(LIBRARY_USER, script), 'utf8')),
        ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: LIBRARY_USER,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
