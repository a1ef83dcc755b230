/**
 * Where a config file's syntax error is: `import()` of a broken `.mjs` reports
 * only "Unexpected token '}'", and a `.ts` config is transpiled leniently, so
 * a typo surfaces as a confusing runtime error. On that error path only,
 * Node's own parser (`node --check`) or TypeScript's locates the mistake.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

/** A syntax error's position (1-based) and Node's or TypeScript's words for it. */
interface SyntaxLocation {
  line: number;
  column: number;
  message: string;
}

/** `node --check` output: "file:LINE\n<code>\n<spaces>^^^\n\nSyntaxError: message". */
function nodeCheck(file: string): SyntaxLocation | undefined {
  const result = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 });
  if (result.status === 0 || !result.stderr) return undefined;
  const lines = result.stderr.split('\n');
  const head = /:(\d+)$/.exec(lines[0] ?? '');
  const caret = lines.findIndex((line, index) => index > 0 && /^\s*\^/.test(line));
  const message = lines.find((line) => /^SyntaxError: /.test(line));
  if (!head || !message) return undefined;
  return {
    line: Number(head[1]),
    column: caret > 0 ? lines[caret]!.indexOf('^') + 1 : 1,
    message: message.replace(/^SyntaxError: /, ''),
  };
}

/** TypeScript's first syntax diagnostic, when typescript is installed (cosmiconfig needs it for .ts configs anyway). */
function typescriptCheck(file: string): SyntaxLocation | undefined {
  // The app's typescript, else the one cosmiconfig (beside toolshed) would load.
  let ts: typeof import('typescript') | undefined;
  for (const from of [file, import.meta.url]) {
    try {
      ts = createRequire(from)('typescript') as typeof import('typescript');
      break;
    } catch {
      // not installed there
    }
  }
  if (!ts) return undefined;
  const output = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext },
  });
  const first = output.diagnostics?.find((d) => d.file && d.start !== undefined);
  if (!first?.file || first.start === undefined) return undefined;
  const { line, character } = first.file.getLineAndCharacterOfPosition(first.start);
  return { line: line + 1, column: character + 1, message: ts.flattenDiagnosticMessageText(first.messageText, ' ') };
}

/** The first syntax error in a JavaScript or TypeScript config file, if it has one. */
export function syntaxLocation(file: string): SyntaxLocation | undefined {
  try {
    return /\.[cm]?ts$/.test(file) ? typescriptCheck(file) : nodeCheck(file);
  } catch {
    return undefined;
  }
}
