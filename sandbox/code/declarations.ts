import { argsAreOptional, commentText, propertyName, resultType, schemaToType } from './schema-type.js';
import { CodeErrorCode, SEARCH_FUNCTION, type CodeLimits, type CodeToolSpec } from './types.js';

export { SEARCH_FUNCTION };

/**
 * The TypeScript-style declaration of one sandbox function, with its description as a doc comment.
 *
 * @example
 * declarationFor({ name: 'read_file', description: 'Read a file', parameters: { type: 'object',
 *   properties: { path: { type: 'string', description: 'path' }, offset: { type: 'number' } }, required: ['path'] } })
 * // '/** Read a file *\/\nread_file(args: { /** path *\/ path: string; offset?: number }): Promise<unknown>;'
 * A tool with an outputSchema resolves to that object: `Promise<{ tempC: number }>`.
 */
export function declarationFor(spec: CodeToolSpec): string {
  const optional = argsAreOptional(spec.parameters) ? '?' : '';
  const result = spec.outputSchema ? resultType(spec.outputSchema) : 'unknown';
  const args = schemaToType(spec.parameters);
  const signature = `${propertyName(spec.name)}(args${optional}: ${args}): Promise<${result}>;`;
  return docComment(spec.description) + signature;
}

/**
 * The full description of `execute_code` for exactly these functions (pass only what
 * `probeExports` reported) and limits. With no functions it says so and lists none;
 * with `search`, it declares `tools.search`, which finds the tools not declared.
 */
export function describeExecuteCode(
  specs: CodeToolSpec[],
  limits: CodeLimits,
  options: { search?: boolean } = {},
): string {
  return [intro(), functionsSection(specs, options.search === true), limitsSection(limits), resultSection()].join(
    '\n\n',
  );
}

/** The declaration of tools.search. */
export const SEARCH_DECLARATION = [
  '/** Find more tools: the ones not declared here, best match first (at most limit, default 5). Each found ' +
    'tool can be called right away as `tools[name](args)` when `callable` is true, and appears in your tool list ' +
    'from the next turn. */',
  `${SEARCH_FUNCTION}(query: string, limit?: number): Promise<{ tools: { name: string; description: string; ` +
    `toolset: string; parameters: object; callable: boolean }[] }>;`,
].join('\n');

function intro(): string {
  return [
    'Run JavaScript in an isolated QuickJS sandbox. Use it to chain several tool calls in one step: loop, ' +
      'filter and combine their results in code instead of calling tools one at a time.',
    'The code is the body of an async function: use top-level `await`, and `return` a JSON-serialisable value ' +
      'to get it back as `result`. `console.log` (and console.info/debug/warn/error) output is captured. There ' +
      'is no `process`, `require`, `import`, file system, network or timers: the only way out of the sandbox is ' +
      'the functions on the global `tools` object.',
  ].join('\n');
}

function functionsSection(specs: CodeToolSpec[], search: boolean): string {
  if (specs.length === 0 && !search) {
    return (
      'No tool functions are available in this sandbox: `tools` is an empty object, so the code can only compute ' +
      'with plain JavaScript.'
    );
  }
  const declared = specs.map((spec) => declarationFor(spec));
  const unknown = search
    ? 'a name neither declared here nor found with tools.search throws UNKNOWN_TOOL'
    : 'a name not declared here throws UNKNOWN_TOOL';
  if (search) declared.push(SEARCH_DECLARATION);
  const body = declared.map((text) => indent(text)).join('\n');
  return [
    `Each function takes one arguments object and resolves to the tool's result: the object its declared type ` +
      `names when it has one, else the parsed JSON value when the tool returns JSON, otherwise its text. A ` +
      `failed call throws an Error whose \`code\` property holds the error code (for example INVALID_ARGUMENTS ` +
      `or TOOL_FAILED); ${unknown}.`,
    `Functions on \`tools\`:\n\`\`\`ts\ndeclare const tools: {\n${body}\n};\n\`\`\``,
  ].join('\n');
}

function limitsSection(limits: CodeLimits): string {
  return [
    'Limits:',
    `- time: ${limits.timeoutMs} ms per run, after which the script is stopped (status "timeout");`,
    `- memory: ${limits.memoryMb} MB of heap;`,
    `- tool calls: at most ${limits.maxToolCalls} per run; further calls throw an Error with code ` +
      `${CodeErrorCode.budgetExceeded} and are not made;`,
    `- output: ${limits.maxOutputChars} characters of console output, keeping the beginning and the end.`,
  ].join('\n');
}

function resultSection(): string {
  return 'Returns JSON: { status: "ok" | "error" | "timeout", output, result, toolCalls, durationMs, error? }.';
}

function docComment(description: string): string {
  const lines = description
    .split(/\r?\n/)
    .map((line) => commentText(line))
    .filter((line) => line !== '');
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
