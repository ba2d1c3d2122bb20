import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import type { Problem } from "../api.ts";
import { Field, useErrorShown } from "../../shared/ui.tsx";

/**
 * The back office's form controls, on the shared Field (label, hint, the API's error beside the
 * control). They are uncontrolled: a filter form is read whole when it is sent (formValues).
 */

interface InputProps {
  label: string;
  name: string;
  error?: string | undefined;
  hint?: string;
  type?: "text" | "search" | "email" | "password" | "date" | "number";
  defaultValue?: string;
  required?: boolean;
  autocomplete?: string;
  maxLength?: number;
  step?: number;
}

export function Input({ label, name, error, hint, type = "text", ...input }: InputProps) {
  return (
    <Field label={label} name={name} error={error} {...(hint ? { hint } : {})}>
      {/* Preact's types pair each input type with its own attributes; these text-like ones take them all. */}
      {(attributes) => <input {...attributes} type={type as "text"} {...input} />}
    </Field>
  );
}

type Options = ReadonlyArray<readonly [value: string, text: string]>;

export function Select({
  label,
  name,
  error,
  options,
  defaultValue,
}: {
  label: string;
  name: string;
  error?: string | undefined;
  options: Options;
  defaultValue?: string;
}) {
  return (
    <Field label={label} name={name} error={error}>
      {(attributes) => (
        <select {...attributes}>
          <Options options={options} chosen={defaultValue} />
        </select>
      )}
    </Field>
  );
}

/**
 * A select's options, the chosen one selected when drawn. (A select has no defaultValue; `selected`
 * is set when an option is made, and then left alone, so what a person picks stays picked.)
 */
function Options({ options, chosen }: { options: Options; chosen: string | undefined }) {
  return (
    <>
      {options.map(([value, text]) => (
        <option key={value} value={value} selected={value === chosen}>
          {text}
        </option>
      ))}
    </>
  );
}

/** A select in a table cell, where the column names what it is: its label is read out, not drawn. */
export function CellSelect({
  label,
  name,
  error: given,
  options,
  defaultValue,
}: {
  label: string;
  name: string;
  error?: string | undefined;
  options: Options;
  defaultValue?: string;
}) {
  const id = useId();
  const { box, error, onInput } = useErrorShown<HTMLDivElement>(given);
  return (
    <div ref={box} class={error ? "field field--invalid" : "field"} onInput={onInput}>
      <label for={id} class="visually-hidden">
        {label}
      </label>
      <select id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
        <Options options={options} chosen={defaultValue} />
      </select>
      {error && (
        <p class="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** Checkboxes for a filter that takes several values (sent comma-separated), with the API's message about it. */
export function CheckGroup({
  name,
  legend,
  values,
  checked,
  error: given,
}: {
  name: string;
  legend: string;
  values: readonly string[];
  checked: readonly string[];
  error?: string | undefined;
}) {
  const id = useId();
  const { box, error, onInput } = useErrorShown<HTMLFieldSetElement>(given);
  return (
    <fieldset ref={box} class={error ? "checks field--invalid" : "checks"} aria-describedby={error ? `${id}-error` : undefined} onInput={onInput}>
      <legend>{legend}</legend>
      {values.map((value) => (
        <label key={value} class="choice">
          <input type="checkbox" name={name} value={value} defaultChecked={checked.includes(value)} />
          {value.charAt(0) + value.slice(1).toLowerCase()}
        </label>
      ))}
      {error && (
        <p class="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** A problem that belongs to no field the form shows, read out when it appears; messages about the fields it shows stand beside them. */
export function ProblemNote({ problem, fields = [] }: { problem: Problem | null; fields?: readonly string[] }) {
  if (!problem) return null;
  const named = Object.keys(problem.fields);
  // Every field it names stands on the form, its message beside it (and the first takes the focus): nothing more to say here.
  if (named.length > 0 && named.every((path) => fields.includes(path))) return null;
  const others = Object.entries(problem.fields).filter(([path]) => !fields.includes(path));
  return (
    <div class="alert" role="alert">
      <p>{problem.message}</p>
      {others.length > 0 && (
        <ul>
          {others.map(([path, message]) => (
            <li key={path}>
              {path}: {message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/** A wide table that scrolls sideways within itself where it must, reachable by keyboard to scroll it. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so a keyboard can scroll it
    <section class="table-wrap panel-table" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/** Previous and next page links for a list with meta { total, page, limit }. */
export function Pager({ meta, hrefFor }: { meta: { total: number; page: number; limit: number }; hrefFor: (page: number) => string }) {
  const pages = Math.max(1, Math.ceil(meta.total / meta.limit));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {meta.page > 1 ? <a href={hrefFor(meta.page - 1)}>Previous page</a> : <span />}
      <span>
        Page {meta.page} of {pages}
      </span>
      {meta.page < pages ? <a href={hrefFor(meta.page + 1)}>Next page</a> : <span />}
    </nav>
  );
}

/** The values of a form's fields; a name given several times (checkboxes) is joined with commas. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of new FormData(form)) {
    const text = String(value).trim();
    if (!text) continue;
    values[key] = values[key] ? `${values[key]},${text}` : text;
  }
  return values;
}
