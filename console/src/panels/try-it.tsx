/**
 * The "Try it" form: inputs generated from the tool's JSON Schema (strings, numbers, integers,
 * booleans, enums, arrays of scalars), or a JSON editor when the schema holds anything else and
 * whenever the operator asks for it; the arguments are checked before the call is sent through
 * the host's normal dispatch (`POST api/call`), and the outcome (the result text, or the error
 * envelope's code and message) shows in the "Result" region.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { describeError, post } from '../api.js';
import { duration } from '../format.js';
import { argsFromForm, checkArgs, type Field, type FormValues, formFields, formFromArgs } from '../schema-form.js';
import type { CallAnswer } from '../../../core/console/api-types.js';
import type { JsonSchema } from '../schema-form.js';

/** One generated input. */
function FieldInput(props: { id: string; field: Field; value: string; onChange: (value: string) => void }) {
  const { field, value, id } = props;
  const set = (event: { currentTarget: { value: string } }) => props.onChange(event.currentTarget.value);
  if (field.kind === 'boolean' && field.required) {
    return (
      <input
        id={id}
        type="checkbox"
        checked={value === 'true'}
        onChange={(event) => props.onChange(event.currentTarget.checked ? 'true' : 'false')}
      />
    );
  }
  if (field.kind === 'boolean' || field.kind === 'enum') {
    const options =
      field.kind === 'boolean'
        ? ['true', 'false']
        : (field.options ?? []).map((option) => (typeof option === 'string' ? option : JSON.stringify(option)));
    return (
      <select id={id} value={value} onChange={set}>
        {!(field.required && field.kind === 'enum') || value === '' ? <option value="">(not set)</option> : null}
        {options.map((label, index) => (
          <option key={label} value={field.kind === 'boolean' ? label : String(index)}>
            {label}
          </option>
        ))}
      </select>
    );
  }
  if (field.kind === 'array')
    return (
      <textarea id={id} rows={3} value={value} onInput={set} placeholder={`one ${field.item ?? 'value'} per line`} />
    );
  if (field.kind === 'string') return <input id={id} type="text" value={value} onInput={set} />;
  return <input id={id} type="number" step={field.kind === 'integer' ? 1 : 'any'} value={value} onInput={set} />;
}

/** The outcome of the last call, in the region named "Result" (a named section is a region). */
function Result(props: {
  answer: CallAnswer | undefined;
  problems: string[];
  running: boolean;
  failure: string | undefined;
}) {
  const { answer } = props;
  return (
    <section class="result" aria-label="Result" aria-live="polite" aria-busy={props.running}>
      <h4 class="result-title">Result</h4>
      {props.running && <p class="muted">running…</p>}
      {!props.running && props.problems.length > 0 && (
        <ul class="problem">
          {props.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      {!props.running && props.failure && <p class="problem">{props.failure}</p>}
      {!props.running && answer && answer.outcome.ok && (
        <>
          <p class="muted">OK · {duration(answer.durationMs)}</p>
          <pre class="output">{answer.outcome.text}</pre>
        </>
      )}
      {!props.running && answer && !answer.outcome.ok && (
        <p class="problem">
          <code>{answer.outcome.code}</code> {answer.outcome.message}
          <span class="muted"> · {duration(answer.durationMs)}</span>
        </p>
      )}
      {!props.running && !answer && !props.failure && props.problems.length === 0 && (
        <p class="muted">Nothing run yet.</p>
      )}
    </section>
  );
}

/** The form for `tool`; `example` fills it when the operator picks one. */
export function TryIt(props: { tool: string; schema: JsonSchema; example: { args: unknown; n: number } | undefined }) {
  // By content: the detail is fetched again when the host changes, and an unchanged schema keeps what was typed.
  const schemaText = JSON.stringify(props.schema);
  const fields = useMemo(() => formFields(JSON.parse(schemaText) as JsonSchema), [schemaText]);
  const [raw, setRaw] = useState(fields === undefined);
  const [values, setValues] = useState<FormValues>({});
  const [text, setText] = useState('{}');
  const [answer, setAnswer] = useState<CallAnswer>();
  const [problems, setProblems] = useState<string[]>([]);
  const [failure, setFailure] = useState<string>();
  const [running, setRunning] = useState(false);

  useEffect(() => {
    setRaw(fields === undefined);
    setValues({});
    setText('{}');
    setAnswer(undefined);
    setProblems([]);
    setFailure(undefined);
  }, [props.tool, fields]);

  useEffect(() => {
    if (!props.example || typeof props.example.args !== 'object' || props.example.args === null) return;
    const args = props.example.args as Record<string, unknown>;
    setText(JSON.stringify(args, null, 2));
    if (fields) setValues(formFromArgs(fields, args));
  }, [props.example]);

  const currentArgs = (): { args: Record<string, unknown> } | { problems: string[] } => {
    if (raw || !fields) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        return { problems: [`arguments are not JSON: ${describeError(error)}`] };
      }
      const found = checkArgs(parsed, { ...props.schema, type: 'object' });
      return found.length > 0 ? { problems: found } : { args: parsed as Record<string, unknown> };
    }
    const built = argsFromForm(fields, values);
    if ('problems' in built) return built;
    const found = checkArgs(built.args, props.schema);
    return found.length > 0 ? { problems: found } : built;
  };

  const toggleRaw = (on: boolean) => {
    if (on && fields) {
      const built = argsFromForm(fields, values);
      if ('args' in built) setText(JSON.stringify(built.args, null, 2));
    }
    if (!on && fields) {
      try {
        const parsed = JSON.parse(text) as unknown;
        if (typeof parsed === 'object' && parsed !== null)
          setValues(formFromArgs(fields, parsed as Record<string, unknown>));
      } catch {
        // the form keeps what it had: the text was not JSON
      }
    }
    setRaw(on);
  };

  const run = async () => {
    const built = currentArgs();
    setAnswer(undefined);
    setFailure(undefined);
    if ('problems' in built) {
      setProblems(built.problems);
      return;
    }
    setProblems([]);
    setRunning(true);
    try {
      setAnswer(await post<CallAnswer>('call', { tool: props.tool, args: built.args }));
    } catch (error) {
      setFailure(describeError(error));
    } finally {
      setRunning(false);
    }
  };

  return (
    <div class="try-it">
      <form
        aria-label={`Try ${props.tool}`}
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <label class="toggle">
          <input
            type="checkbox"
            checked={raw}
            disabled={fields === undefined}
            onChange={(event) => toggleRaw(event.currentTarget.checked)}
          />
          Edit raw JSON
        </label>
        {fields === undefined && <p class="muted">This schema needs the JSON editor.</p>}
        {raw || !fields ? (
          <>
            <label for="try-json">Arguments (JSON)</label>
            <textarea
              id="try-json"
              class="code"
              rows={8}
              spellcheck={false}
              value={text}
              onInput={(event) => setText(event.currentTarget.value)}
            />
          </>
        ) : (
          <div class="fields">
            {fields.length === 0 && <p class="muted">This tool takes no arguments.</p>}
            {fields.map((field) => (
              <div class="field" key={field.name}>
                <label for={`try-${field.name}`}>
                  {field.name}
                  {field.required && <span class="required"> (required)</span>}
                  <span class="muted"> {field.kind === 'array' ? `${field.item} list` : field.kind}</span>
                </label>
                <FieldInput
                  id={`try-${field.name}`}
                  field={field}
                  value={values[field.name] ?? ''}
                  onChange={(value) => setValues({ ...values, [field.name]: value })}
                />
                {field.description && <p class="hint">{field.description}</p>}
              </div>
            ))}
          </div>
        )}
        <button type="submit" class="primary" disabled={running}>
          Run
        </button>
      </form>
      <Result answer={answer} problems={problems} running={running} failure={failure} />
    </div>
  );
}
