import { argsAreOptional, commentText, propertyName, schemaToType } from './schema-type.js';
import { CodeErrorCode, type CodeLimits, type CodeToolSpec } from './types.js';

/**
 * The TypeScript-style declaration of one sandbox function, with its description as a doc comment.
 *
 * @example
 * declarationFor({ name: 'read_file', description: 'Read a file', parameters: { type: 'object',
 *   properties: { path: { type: 'string', description: 'path' }, offset: { type: 'number' } }, required: ['path'] } })
 * // '/** Read a file *\/\nread_file(args: { /** path *\/ path: string; offset?: number }): Promise<unknown>;'
 */
export function declarationFor(spec: CodeToolSpec): string {
  const optional = argsAreOptional(spec.parameters) ? '?' : '';
  const signature = `${propertyName(spec.name)}(args${optional}: ${schemaToType(spec.parameters)}): Promise<unknown>;`;
  return docComment(spec.description) + signature;
}

/**
 * The full description of `execute_code` for exactly these functions (pass only what
 * `probeExports` reported) and limits. With no functions it says so and lists none.
 */
export function describeExecuteCode(specs: CodeToolSpec[], limits: CodeLimits): string {
  return [intro(), functionsSection(specs), limitsSection(limits), resultSection()].join('\n\n');
}

function intro(): string {
  return [
    'Run JavaScript in an isolated QuickJS sandbox. Use it to chain several tool calls in one step: loop, filter and combine their results in code instead of calling tools one at a time.',
    'The code is the body of an async function: use top-level `await`, and `return` a JSON-serialisable value to get it back as `result`. `console.log` (and console.info/debug/warn/error) output is captured. There is no `process`, `require`, `import`, file system, network or timers: the only way out of the sandbox is the functions on the global `tools` object.',
  ].join('\n');
}

function functionsSection(specs: CodeToolSpec[]): string {
  if (specs.length === 0) {
    return 'No tool functions are available in this sandbox: `tools` is an empty object, so the code can only compute with plain JavaScript.';
  }
  const body = specs.map((spec) => indent(declarationFor(spec))).join('\n');
  return [
    'Each function takes one arguments object and resolves to the tool\'s result: the parsed JSON value when the tool returns JSON, otherwise its text. A failed call throws an Error whose `code` property holds the error code (for example INVALID_ARGUMENTS or TOOL_FAILED); a name not declared here throws UNKNOWN_TOOL.',
    `Functions on \`tools\`:\n\`\`\`ts\ndeclare const tools: {\n${body}\n};\n\`\`\``,
  ].join('\n');
}

function limitsSection(limits: CodeLimits): string {
  return [
    'Limits:',
    `- time: ${limits.timeoutMs} ms per run, after which the script is stopped (status "timeout");`,
    `- memory: ${limits.memoryMb} MB of heap;`,
    `- tool calls: at most ${limits.maxToolCalls} per run; further calls throw an Error with code ${CodeErrorCode.budgetExceeded} and are not made;`,
    `- output: ${limits.maxOutputChars} characters of console output, keeping the beginning and the end.`,
  ].join('\n');
}

function resultSection(): string {
  return 'Returns JSON: { status: "ok" | "error" | "timeout", output, result, toolCalls, durationMs, error? }.';
}

function docComment(description: string): string {
  const lines = description.split(/\r?\n/).map((line) => commentText(line)).filter((line) => line !== '');
  if (lines.length === 0) return '';
  if (lines.length === 1) return `/** ${lines[0]} */\n`;
  return `/**\n${lines.map((line) => ` * ${line}`).join('\n')}\n */\n`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
