/**
 * The selected tool's detail: its state and reason, its plugin's requested / granted / effective /
 * enforced permissions, its description part by part (conditional parts marked, shown or not, and
 * the tools they depend on), the definition the model gets in each provider format, its schema,
 * its examples, and the "Try it" form.
 */
import { useEffect, useState } from 'preact/hooks';
import { describeError, get } from '../api.js';
import type { DefinitionFormat as Format, MarkedPart, ToolDetail as Detail } from '../../../core/console/api-types.js';
import { JsonBlock, Panel } from './panel.js';
import { TryIt } from './try-it.js';

/** The provider formats the panel shows a definition in. */
const FORMATS = ['openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const satisfies readonly Format[];

/** `always`, `if read_file is available`, `if web_search is missing`. */
function condition(part: MarkedPart): string {
  const tools = (part.tools ?? []).join(', ');
  if (part.kind === 'ifAvailable') return `if ${tools} ${part.tools && part.tools.length > 1 ? 'are' : 'is'} available`;
  if (part.kind === 'ifMissing') return `if ${tools} ${part.tools && part.tools.length > 1 ? 'are' : 'is'} missing`;
  return 'always';
}

/** The description, part by part. */
function Description(props: { description: Detail['description'] }) {
  return (
    <div class="description">
      <ol class="parts">
        {props.description.parts.map((part, index) => (
          <li key={index} class={`part ${part.shown ? 'shown' : 'not-shown'}`}>
            <span class={`tag ${part.kind === 'plain' ? '' : 'conditional'}`}>{condition(part)}</span>
            <span class="tag">{part.shown ? 'shown' : 'not shown'}</span>
            <span class="part-text">{part.text}</span>
          </li>
        ))}
      </ol>
      <h4>What the model reads now</h4>
      <pre class="output">{props.description.resolved || '(nothing: the tool is hidden)'}</pre>
    </div>
  );
}

/** The definition in the chosen provider format. */
function Definitions(props: { definitions: Detail['definitions']; reason: string | undefined }) {
  const [format, setFormat] = useState<Format>('openai');
  if (!props.definitions)
    return <p class="muted">Not exposed, so the model gets no definition{props.reason ? `: ${props.reason}` : ''}.</p>;
  return (
    <div>
      <label for="format">Provider format </label>
      <select id="format" value={format} onChange={(event) => setFormat(event.currentTarget.value as Format)}>
        {FORMATS.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <JsonBlock value={props.definitions[format]} />
    </div>
  );
}

/** Requested, granted, effective and enforced permissions, side by side. */
function Permissions(props: { plugin: Detail['plugin'] }) {
  const permissions = props.plugin.permissions;
  if (!permissions)
    return <p class="muted">No permissions reported (an MCP server's tools run in the server's own process).</p>;
  const columns: Array<[string, unknown]> = [
    ['requested', permissions.requested],
    ['granted', permissions.granted],
    ['effective', permissions.effective],
    ['enforced', permissions.enforced],
  ];
  return (
    <div class="permissions">
      {columns.map(([label, value]) => (
        <div key={label}>
          <h5>{label}</h5>
          <JsonBlock value={value} />
        </div>
      ))}
    </div>
  );
}

/** The detail panel for `name` (or a hint when none is selected). */
export function ToolDetail(props: { name: string | undefined; generation: number }) {
  const [detail, setDetail] = useState<Detail>();
  const [failure, setFailure] = useState<string>();
  const [example, setExample] = useState<{ args: unknown; n: number }>();

  useEffect(() => {
    if (!props.name) return;
    const controller = new AbortController();
    setFailure(undefined);
    get<Detail>(`tools/${encodeURIComponent(props.name)}`, controller.signal)
      .then(setDetail)
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setFailure(describeError(error));
      });
    return () => controller.abort();
  }, [props.name, props.generation]);

  if (!props.name)
    return (
      <Panel title="Tool" id="detail" class="detail">
        <p class="muted">Select a tool to see why it is or is not exposed, what the model reads, and to try it.</p>
      </Panel>
    );
  const current = detail?.state.name === props.name ? detail : undefined;
  return (
    <Panel title={`Tool: ${props.name}`} id="detail" class="detail">
      {failure && <p class="problem">{failure}</p>}
      {!current && !failure && <p class="muted">loading…</p>}
      {current && (
        <>
          <dl class="state">
            <div>
              <dt>state</dt>
              <dd>
                {current.state.exposed
                  ? current.state.deferred
                    ? 'exposed, deferred'
                    : 'exposed'
                  : `hidden${current.state.layer ? ` at ${current.state.layer}` : ''}`}
              </dd>
            </div>
            {current.state.reason && (
              <div>
                <dt>reason</dt>
                <dd class="reason">{current.state.reason}</dd>
              </div>
            )}
            <div>
              <dt>plugin</dt>
              <dd>
                {current.plugin.name} · {current.plugin.tier ?? '—'} tier · {current.plugin.trust ?? '—'}
              </dd>
            </div>
            {current.title && (
              <div>
                <dt>title</dt>
                <dd>{current.title}</dd>
              </div>
            )}
            {(current.state.warnings ?? []).map((warning) => (
              <div key={warning}>
                <dt>warning</dt>
                <dd class="problem">{warning}</dd>
              </div>
            ))}
          </dl>
          <details open>
            <summary>
              <h3>Try it</h3>
            </summary>
            <TryIt tool={current.state.name} schema={current.parameters} example={example} />
          </details>
          <details open>
            <summary>
              <h3>Description</h3>
            </summary>
            <Description description={current.description} />
          </details>
          <details>
            <summary>
              <h3>As the model sees it</h3>
            </summary>
            <Definitions definitions={current.definitions} reason={current.state.reason} />
          </details>
          <details>
            <summary>
              <h3>Permissions</h3>
            </summary>
            <Permissions plugin={current.plugin} />
          </details>
          <details>
            <summary>
              <h3>Schema</h3>
            </summary>
            <JsonBlock value={current.parameters} />
            {current.outputSchema && <JsonBlock value={current.outputSchema} />}
            {current.annotations && Object.keys(current.annotations).length > 0 && (
              <JsonBlock value={current.annotations} />
            )}
          </details>
          {current.examples && current.examples.length > 0 && (
            <details>
              <summary>
                <h3>Examples</h3>
              </summary>
              <ul class="examples">
                {current.examples.map((args, index) => (
                  <li key={index}>
                    <JsonBlock value={args} />
                    <button type="button" onClick={() => setExample({ args, n: Date.now() })}>
                      Use example {index + 1}
                    </button>
                  </li>
                ))}
              </ul>
            </details>
          )}
        </>
      )}
    </Panel>
  );
}
