/**
 * The "Layers" panel: how many tools each layer lets through, registered → selected (layer 1,
 * toolsets) → available (layer 2, checks) → exposed (layer 3 and the gate), and how many of the
 * exposed are deferred to tool_search.
 */
import type { Funnel } from '../../../core/console/api-types.js';
import { Panel } from './panel.js';

const STEPS: Array<{ key: keyof Funnel; label: string; note: string }> = [
  { key: 'registered', label: 'registered', note: 'declared by loaded plugins and servers' },
  { key: 'selected', label: 'selected', note: 'layer 1: enable / disable' },
  { key: 'available', label: 'available', note: 'layer 2: requires and checks' },
  { key: 'exposed', label: 'exposed', note: 'what the model may call' },
  { key: 'deferred', label: 'deferred', note: 'exposed, found through tool_search' },
];

/** The funnel, one bar per layer. */
export function Layers(props: { funnel: Funnel | undefined }) {
  const funnel = props.funnel;
  const top = Math.max(1, funnel?.registered ?? 1);
  return (
    <Panel title="Layers" id="layers">
      <ol class="funnel">
        {STEPS.map((step) => {
          const count = funnel?.[step.key] ?? 0;
          return (
            <li key={step.key} class={`step step-${step.key}`}>
              <span class="step-label">{step.label}</span>
              <span class="bar" aria-hidden="true">
                <span style={{ width: `${Math.max(2, (count / top) * 100)}%` }} />
              </span>
              <span class="count">{funnel ? count : '…'}</span>
              <span class="note">{step.note}</span>
            </li>
          );
        })}
      </ol>
    </Panel>
  );
}
