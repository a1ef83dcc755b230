/**
 * A panel of the page: a labelled region with its heading, so screen readers and tests find it
 * by role and name.
 */
import type { ComponentChildren } from 'preact';

/** A region named `title` (its heading), with `id` as the heading's anchor and an optional class. */
export function Panel(props: {
  title: string;
  id: string;
  class?: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <section class={`panel ${props.class ?? ''}`} aria-labelledby={`${props.id}-title`}>
      <header class="panel-head">
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/** A JSON value in a preformatted block. */
export function JsonBlock(props: { value: unknown }) {
  return <pre class="json">{JSON.stringify(props.value, null, 2) ?? String(props.value)}</pre>;
}
