/** Reads and validates the extracted schemas of one Kafka release. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSchemaText } from './parse.js';
import { type MessageSpec, validateMessage } from './validate.js';

/** Where the extraction script puts each jar's schemas, below fixtures/schemas/. */
export const SCHEMA_DIRS = [
  ['kafka-clients/common/message', 'clients'],
  ['kafka-storage/message', 'storage'],
] as const;

/**
 * Loads every schema under `dir` (the layout `npm run schemas` writes).
 * @param pinnedRelease the Kafka version the schemas must come from
 * @throws Error when the schemas are missing or from another release; SchemaError when one
 *   breaks the grammar
 */
export function loadSchemas(
  dir: string,
  pinnedRelease: string,
): { release: string; specs: MessageSpec[] } {
  const pinFile = join(dir, 'release.json');
  if (!existsSync(pinFile)) throw new Error(`${dir} has no schemas: run \`npm run schemas\` first`);
  const release = (JSON.parse(readFileSync(pinFile, 'utf8')) as { kafka: string }).kafka;
  if (release !== pinnedRelease) {
    throw new Error(
      `schemas are from Kafka ${release} but the pin is ${pinnedRelease}: run \`npm run schemas\``,
    );
  }
  const specs: MessageSpec[] = [];
  for (const [sub, label] of SCHEMA_DIRS) {
    const d = join(dir, sub);
    for (const f of readdirSync(d).sort()) {
      if (!f.endsWith('.json')) continue;
      const file = `${label}/${f}`;
      specs.push(validateMessage(file, parseSchemaText(file, readFileSync(join(d, f), 'utf8'))));
    }
  }
  return { release, specs };
}
