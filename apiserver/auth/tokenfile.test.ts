import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CsvParseError, loadTokenFile, parseTokenFile, readCsvRecords } from './tokenfile.ts';

function parse(content: string) {
  const warnings: string[] = [];
  const tokens = parseTokenFile(content, '/etc/tokens.csv', { warn: (m) => warnings.push(m) });
  return { tokens: Object.fromEntries(tokens), warnings };
}

function records(content: string): string[][] {
  return [...readCsvRecords(Buffer.from(content))];
}

describe('parseTokenFile', () => {
  it('reads token, user, uid and the quoted comma-separated groups', () => {
    assert.deepEqual(parse('tok1,alice,uid-1,"system:masters,devs"\ntok2,bob,uid-2\n'), {
      tokens: {
        tok1: { username: 'alice', uid: 'uid-1', groups: ['system:masters', 'devs'] },
        tok2: { username: 'bob', uid: 'uid-2', groups: [] },
      },
      warnings: [],
    });
  });

  it('ignores columns after the fourth and keeps an empty groups field as one empty group', () => {
    assert.deepEqual(parse('t,u,id,,extra,more').tokens, { t: { username: 'u', uid: 'id', groups: [''] } });
  });

  it('skips blank lines, keeps white space, accepts CRLF', () => {
    assert.deepEqual(parse('\n\n t , u ,id\r\n\r\nt2,u2,id2').tokens, {
      ' t ': { username: ' u ', uid: 'id', groups: [] },
      t2: { username: 'u2', uid: 'id2', groups: [] },
    });
  });

  it('has no comment syntax: a # line is a record like any other', () => {
    assert.throws(() => parse('# static tokens\nt,u,id\n'), {
      message: "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 1",
    });
    assert.deepEqual(parse('# token,user,uid\n').tokens, { '# token': { username: 'user', uid: 'uid', groups: [] } });
  });

  it('rejects records with fewer than 3 columns', () => {
    assert.throws(() => parse('t,u,id\nt2,u2\n'), {
      message: "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    });
    // A line of spaces is not blank.
    assert.throws(() => parse('t,u,id\n   \n'), { message: "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 1" });
  });

  it('skips an empty token with a warning naming the record', () => {
    assert.deepEqual(parse('a,u1,1\n,u2,2\nb,u3,3\n'), {
      tokens: { a: { username: 'u1', uid: '1', groups: [] }, b: { username: 'u3', uid: '3', groups: [] } },
      warnings: ["empty token has been found in token file '/etc/tokens.csv', record number '2'"],
    });
  });

  it('warns on a duplicate token and keeps the later record', () => {
    assert.deepEqual(parse('a,first,1\n\nb,x,2\na,second,3\n'), {
      tokens: { a: { username: 'second', uid: '3', groups: [] }, b: { username: 'x', uid: '2', groups: [] } },
      warnings: ["duplicate token has been found in token file '/etc/tokens.csv', record number '3'"],
    });
  });
});

describe('readCsvRecords (Go encoding/csv rules)', () => {
  it('unescapes doubled quotes and keeps newlines inside quoted fields, CRLF as LF', () => {
    assert.deepEqual(records('"a ""b""","x\r\ny",z\n'), [['a "b"', 'x\ny', 'z']]);
  });

  it('handles an empty last field and a final line without newline', () => {
    assert.deepEqual(records('a,b,\n"c",d'), [
      ['a', 'b', ''],
      ['c', 'd'],
    ]);
  });

  it('reports a bare quote in an unquoted field', () => {
    assert.throws(() => records('x,y,z\na,b"c,d\n'), new CsvParseError(2, 2, 4, 'bare " in non-quoted-field'));
    assert.throws(() => records('a,b"c,d'), { message: 'parse error on line 1, column 4: bare " in non-quoted-field' });
  });

  it('reports text after a closing quote', () => {
    assert.throws(() => records('"abc"x,b,c'), { message: 'parse error on line 1, column 5: extraneous or missing " in quoted-field' });
  });

  it('reports an unterminated quoted field with the line where the record started', () => {
    assert.throws(() => records('t,u,"abc\ndef'), {
      message: 'record on line 1; parse error on line 2, column 4: extraneous or missing " in quoted-field',
    });
  });

  it('counts columns in bytes', () => {
    assert.throws(() => records('é,b"'), { message: 'parse error on line 1, column 5: bare " in non-quoted-field' });
  });
});

describe('loadTokenFile', () => {
  it('reads a file and fails for a missing one', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-tokens-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'tokens.csv');
    writeFileSync(path, 'secret,admin,1,"system:masters"\n');
    assert.deepEqual(Object.fromEntries(loadTokenFile(path)), { secret: { username: 'admin', uid: '1', groups: ['system:masters'] } });
    assert.throws(() => loadTokenFile(join(dir, 'missing.csv')), { code: 'ENOENT' });
  });
});
