import { describe, expect, it } from 'vitest';
import plugin from '../index.js';

describe('@toolshed/file manifest', () => {
  it('declares the file toolset and its four tools', () => {
    expect(plugin.toolsets).toEqual({ file: { description: 'Read, write, patch and search files' } });
    expect(plugin.tools.map((t) => [t.name, t.toolset])).toEqual([
      ['read_file', 'file'],
      ['write_file', 'file'],
      ['patch', 'file'],
      ['search_files', 'file'],
    ]);
  });

  it('lets only the read-only tools run inside execute_code', () => {
    expect(plugin.tools.filter((t) => t.codeCallable === true).map((t) => t.name)).toEqual([
      'read_file',
      'search_files',
    ]);
  });
});
