/**
 * The "Tools" panel: every registered tool, by name (a button whose accessible name is exactly
 * the name), with its state and the reason it is hidden; a filter box narrows the list by name,
 * toolset, plugin, state or reason.
 */
import { useState } from 'preact/hooks';
import type { ToolLine } from '../../../core/console/api-types.js';
import { Panel } from './panel.js';

/** `exposed`, `deferred`, or `hidden (layer)`. */
function stateOf(tool: ToolLine): string {
  if (!tool.exposed) return tool.layer ? `hidden (${tool.layer})` : 'hidden';
  return tool.deferred ? 'deferred' : 'exposed';
}

/** Whether `tool` matches every word of the filter. */
function matches(tool: ToolLine, filter: string): boolean {
  const text = [tool.name, tool.toolset, tool.plugin, stateOf(tool), tool.reason ?? '', tool.approval ? 'approve' : '']
    .join(' ')
    .toLowerCase();
  return filter
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}

/** The tool list; `onSelect` gets the chosen tool's name. */
export function Tools(props: {
  tools: ToolLine[] | undefined;
  selected: string | undefined;
  onSelect: (name: string) => void;
}) {
  const [filter, setFilter] = useState('');
  const tools = (props.tools ?? []).filter((tool) => matches(tool, filter.trim()));
  return (
    <Panel
      title="Tools"
      id="tools"
      actions={
        <input
          class="filter"
          type="search"
          aria-label="Filter tools"
          placeholder="Filter tools"
          value={filter}
          onInput={(event) => setFilter(event.currentTarget.value)}
        />
      }
    >
      <p class="muted" aria-live="polite">
        {props.tools ? `${tools.length} of ${props.tools.length} tools` : 'loading…'}
      </p>
      <ul class="tool-list">
        {tools.map((tool) => (
          <li
            key={tool.name}
            class={`${tool.exposed ? 'exposed' : 'hidden'} ${tool.name === props.selected ? 'selected' : ''}`}
          >
            <button
              type="button"
              class="tool-name"
              aria-pressed={tool.name === props.selected}
              onClick={() => props.onSelect(tool.name)}
            >
              {tool.name}
            </button>
            <span class={`state state-${tool.exposed ? (tool.deferred ? 'deferred' : 'exposed') : 'hidden'}`}>
              {stateOf(tool)}
            </span>
            {tool.approval && <span class="tag">approve: {tool.approval}</span>}
            <span class="muted toolset">{tool.toolset}</span>
            {tool.reason && <span class="reason">{tool.reason}</span>}
          </li>
        ))}
      </ul>
    </Panel>
  );
}
