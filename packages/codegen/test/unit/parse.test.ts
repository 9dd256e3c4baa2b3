import { describe, expect, it } from 'vitest';
import { parseSchemaText, SchemaError, stripComments } from '../../src/schema/parse.js';

describe('parse', () => {
  it('drops // and /* */ comments outside strings and keeps them inside', () => {
    const text = `// licence header
{
  "name": "X", // trailing
  /* block */ "about": "see http://kafka.apache.org // not a comment"
}`;
    expect(parseSchemaText('x.json', text)).toEqual({
      name: 'X',
      about: 'see http://kafka.apache.org // not a comment',
    });
  });

  it('keeps escaped quotes inside strings', () => {
    expect(stripComments('{"a": "q\\" // x"} // c')).toBe('{"a": "q\\" // x"} ');
  });

  it('rejects invalid JSON and non-object tops with the file name', () => {
    expect(() => parseSchemaText('bad.json', '{ "a": }')).toThrow(SchemaError);
    expect(() => parseSchemaText('bad.json', '[]')).toThrow(
      /bad\.json: top level is not an object/,
    );
  });
});
