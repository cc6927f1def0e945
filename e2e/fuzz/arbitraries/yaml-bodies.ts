/**
 * YAML documents that YAML parsers have choked on: `!!binary` and other tags (standard, unknown,
 * language-specific), undefined aliases, alias bombs (billion laughs), merge keys, several
 * documents in one body, flow sequences nested beyond 10,000 levels, tabs, a BOM, duplicate keys,
 * YAML 1.1 scalars where strings belong. Each is a whole body; `objectYaml` is prepended where the
 * template needs a plausible object around the trouble.
 */
import fc from 'fast-check';
import { nestingDepths } from './hostile-values.ts';

/** A billion-laughs document: `levels` anchors, each a list of `width` aliases of the one before. */
function aliasBomb(levels: number, width: number): string {
  const lines = [`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`];
  for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(',')}]`);
  return lines.join('\n') + '\n';
}

/** Troublesome YAML, given the object's head (apiVersion, kind, metadata) as YAML text. */
export function hostileYaml(objectYaml: string): fc.Arbitrary<{ text: string; note: string }> {
  const templates: [string, string][] = [
    ['binary document', '!!binary aGVsbG8gd29ybGQ=\n'],
    ['binary value', `${objectYaml}data:\n  a: !!binary aGVsbG8=\n`],
    ['binary metadata', `apiVersion: v1\nkind: ConfigMap\nmetadata: !!binary aGVsbG8=\n`],
    ['undefined alias', `${objectYaml}data: *nope\n`],
    ['undefined alias document', '*x\n'],
    ['alias bomb', `${objectYaml}${aliasBomb(9, 9)}`],
    ['small alias bomb', `${objectYaml}${aliasBomb(4, 10)}`],
    ['merge key', `${objectYaml}base: &b {a: "1"}\ndata:\n  <<: *b\n`],
    ['merge key of a scalar', `${objectYaml}data:\n  <<: 1\n`],
    ['self alias', `${objectYaml}data: &x\n  a: *x\n`],
    ['two documents', `${objectYaml}---\n${objectYaml}`],
    ['empty document', '---\n'],
    ['only a comment', '# nothing\n'],
    ['null document', 'null\n'],
    ['a list document', '- a\n- b\n'],
    ['a scalar document', 'hello\n'],
    ['set tag', `${objectYaml}data: !!set {a, b}\n`],
    ['omap tag', `${objectYaml}data: !!omap [a: "1"]\n`],
    ['timestamp tag', `${objectYaml}data:\n  a: !!timestamp 2001-12-14t21:59:43.10-05:00\n`],
    ['float tags', `${objectYaml}data:\n  a: !!float .nan\n  b: .inf\n  c: -.Inf\n`],
    ['int tag', `${objectYaml}data:\n  a: !!int 0x1F\n`],
    ['unknown tag', `${objectYaml}data: !custom {a: "1"}\n`],
    ['js tag', `${objectYaml}data:\n  a: !!js/function "function(){}"\n`],
    ['python tag', `${objectYaml}data:\n  a: !!python/object:os.system ls\n`],
    ['complex key', `${objectYaml}data:\n  ? [a, b]\n  : "1"\n`],
    ['tab indentation', `${objectYaml}data:\n\ta: "1"\n`],
    ['BOM', `\ufeff${objectYaml}`],
    ['duplicate keys', `${objectYaml}data:\n  a: "1"\n  a: "2"\n`],
    ['YAML 1.1 scalars', `${objectYaml}data:\n  a: yes\n  b: off\n  c: 0777\n  d: ~\n`],
    ['directive', `%YAML 1.1\n---\n${objectYaml}`],
    ['unknown directive', `%FOO bar\n---\n${objectYaml}`],
    ['unterminated quote', `${objectYaml}data:\n  a: "1\n`],
    ['unterminated flow', `${objectYaml}data: {a: [1, 2\n`],
    ['control character', `${objectYaml}data:\n  a: "\u0007"\n`],
    ['huge anchor name', `${objectYaml}data: &${'a'.repeat(100_000)} {}\n`],
  ];
  return fc.oneof(
    { arbitrary: fc.constantFrom(...templates).map(([note, text]) => ({ text, note: `yaml: ${note}` })), weight: 4 },
    {
      arbitrary: fc.tuple(fc.constantFrom(...nestingDepths), fc.constantFrom('[', '{a: ')).map(([depth, open]) => ({
        text: `${objectYaml}data: ${open.repeat(depth)}x${(open === '[' ? ']' : '}').repeat(depth)}\n`,
        note: `yaml: flow ${open === '[' ? 'sequences' : 'mappings'} nested ${depth} deep`,
      })),
      weight: 1,
    },
    {
      // Block nesting costs indentation quadratic in depth: 1,500 levels are about 1 MiB.
      arbitrary: fc.constantFrom(10, 100, 1_000, 1_500).map((depth) => ({
        text: `${objectYaml}data:\n${Array.from({ length: depth }, (_, i) => `${' '.repeat(i + 2)}a${i}:`).join('\n')} x\n`,
        note: `yaml: block mappings nested ${depth} deep`,
      })),
      weight: 1,
    },
  );
}
