import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import type { Problem } from "../api.ts";

interface FieldProps {
  id: string;
  label: string;
  /** The API's message about this field, shown beside it. */
  error?: string | undefined;
  hint?: string;
  /** The form field's name (the id unless given). */
  name?: string;
  type?: "text" | "search" | "email" | "password" | "date" | "number";
  defaultValue?: string;
  required?: boolean;
  autocomplete?: string;
  maxLength?: number;
  step?: number;
  /** The label read out but not drawn, where the column says what the field is. */
  hideLabel?: boolean;
}

/** A labelled input with its hint and, beside it, the API's message about it. */
export function Field({ id, label, error, hint, name, type = "text", hideLabel, ...input }: FieldProps) {
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <label for={id} class={hideLabel ? "visually-hidden" : undefined}>
        {label}
      </label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {/* Preact's types pair each input type with its own attributes; these are the text-like ones, which take them all. */}
      <input id={id} name={name ?? id} type={type as "text"} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy} {...input} />
      {error && (
        <span class="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** A labelled select with the API's message about it. */
export function SelectField({
  id,
  label,
  error,
  options,
  defaultValue,
  hideLabel,
}: {
  id: string;
  label: string;
  error?: string | undefined;
  options: ReadonlyArray<readonly [value: string, text: string]>;
  defaultValue?: string;
  hideLabel?: boolean;
}) {
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <label for={id} class={hideLabel ? "visually-hidden" : undefined}>
        {label}
      </label>
      <select id={id} name={id} defaultValue={defaultValue} aria-invalid={error ? "true" : undefined} aria-describedby={error ? `${id}-error` : undefined}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      {error && (
        <span class="field-error" id={`${id}-error`}>
          {error}
        </span>
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
  error,
}: {
  name: string;
  legend: string;
  values: readonly string[];
  checked: readonly string[];
  error?: string | undefined;
}) {
  return (
    <fieldset class={`checks${error ? " field-invalid" : ""}`} aria-describedby={error ? `${name}-error` : undefined}>
      <legend>{legend}</legend>
      {values.map((value) => (
        <label key={value} class="check">
          <input type="checkbox" name={name} value={value} defaultChecked={checked.includes(value)} />
          {value.charAt(0) + value.slice(1).toLowerCase()}
        </label>
      ))}
      {error && (
        <span class="field-error" id={`${name}-error`}>
          {error}
        </span>
      )}
    </fieldset>
  );
}

/** A problem that belongs to no field: read out when it appears. */
export function ProblemNote({ problem, fields = [] }: { problem: Problem | null; fields?: readonly string[] }) {
  if (!problem) return null;
  // Messages about fields the form shows stand beside them; any other is listed here.
  const others = Object.entries(problem.fields).filter(([path]) => !fields.includes(path));
  return (
    <div class="problem" role="alert">
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

/** A page's title, also the window's, focused when the page opens so a screen reader and the keyboard start there. */
export function PageTitle({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · Back office`;
  }, [children]);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** A wide table that scrolls sideways on a narrow screen, reachable by keyboard. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so a keyboard can scroll it
    <section class="table-wrap" aria-label={label} tabIndex={0}>
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
      {meta.page > 1 ? <a href={hrefFor(meta.page - 1)}>Previous page</a> : <span aria-hidden="true" />}
      <span>
        Page {meta.page} of {pages}
      </span>
      {meta.page < pages ? <a href={hrefFor(meta.page + 1)}>Next page</a> : <span aria-hidden="true" />}
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
