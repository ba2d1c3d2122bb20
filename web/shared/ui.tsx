import type { ButtonHTMLAttributes, ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import type { Problem } from "../api/client.ts";
import { formatDollars } from "./format.ts";

/** What a control inside a Field spreads on itself: its id, its error's id, and whether it is invalid. */
export interface ControlAttributes {
  id: string;
  name: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
}

interface FieldProps {
  label: ComponentChildren;
  name: string;
  /** The API's message for this field, shown under it and read out with it. */
  error?: string | undefined;
  hint?: string;
  children: (attributes: ControlAttributes) => ComponentChildren;
}

/**
 * A labelled control with its hint and its error beside it (the error is announced with the control).
 * When errors come to the form the person is in (its button pressed), the first field of it that
 * has one takes the focus, which reads out its label and its error: a form says a field's error
 * nowhere else. A form left meanwhile (another cart line's quantity being typed) keeps no claim on
 * the focus. A field of a form changed since its error came no longer shows it: it was about a
 * value no longer there. Sending the form again shows what its answer brings, the same words
 * included (a form's own check gives them back at once; one asking the API clears its errors as
 * it sends, so no old error shows meanwhile).
 */
export function Field({ label, name, error: given, hint, children }: FieldProps) {
  const id = useId();
  const { box, error, onInput } = useErrorShown<HTMLDivElement>(given);
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  useEffect(() => {
    const control = error ? box.current?.querySelector<HTMLElement>("[aria-invalid='true']") : null;
    const form = control?.closest("form");
    const here = document.activeElement === document.body || document.activeElement === null || form?.contains(document.activeElement);
    if (control && here && form?.querySelector("[aria-invalid='true']") === control) control.focus();
  }, [error]);
  return (
    <div ref={box} class={error ? "field field--invalid" : "field"} onInput={onInput}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children({ id, name, ...(error ? { "aria-invalid": true as const } : {}), ...(described ? { "aria-describedby": described } : {}) })}
      {error && (
        <p class="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * A control's error as it is to be shown: `given`, until the person changes the control (an input
 * event inside `box`, which holds it), for it was about a value no longer there; again once the
 * form is sent or another error is given.
 */
export function useErrorShown<T extends HTMLElement>(given: string | undefined) {
  const box = useRef<T>(null);
  const [edited, setEdited] = useState(false);
  useEffect(() => setEdited(false), [given]);
  useEffect(() => {
    const form = box.current?.closest("form");
    const rearm = () => setEdited(false);
    form?.addEventListener("submit", rearm);
    return () => form?.removeEventListener("submit", rearm);
  }, []);
  const onInput = () => {
    if (given && box.current?.closest("form")) setEdited(true);
  };
  return { box, error: edited ? undefined : given, onInput };
}

interface InputProps {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  error?: string | undefined;
  hint?: string;
  type?: "text" | "email" | "password" | "search" | "number" | "tel";
  autoComplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  inputMode?: "text" | "numeric" | "decimal" | "email" | "search" | "tel";
}

/** A text input in a Field. */
export function TextField({ label, name, value, onValue, error, hint, type = "text", ...rest }: InputProps) {
  return (
    <Field label={label} name={name} error={error} {...(hint ? { hint } : {})}>
      {(attributes) => <input {...rest} {...attributes} type={type as "text"} value={value} onInput={(event) => onValue(event.currentTarget.value)} />}
    </Field>
  );
}

interface SelectProps {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  options: ReadonlyArray<readonly [value: string, label: string]>;
  error?: string | undefined;
  required?: boolean;
  autoComplete?: string;
}

/** A select in a Field. */
export function SelectField({ label, name, value, onValue, options, error, required, autoComplete }: SelectProps) {
  return (
    <Field label={label} name={name} error={error}>
      {(attributes) => (
        <select {...attributes} value={value} required={required} autoComplete={autoComplete} onChange={(event) => onValue(event.currentTarget.value)}>
          {options.map(([optionValue, optionLabel]) => (
            <option key={optionValue} value={optionValue}>
              {optionLabel}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: "primary" | "secondary" | "danger" | "link"; busy?: boolean };

/**
 * A button; while `busy` it does nothing when pressed and says so to assistive technology. It keeps
 * the keyboard's focus meanwhile: a button made `disabled` loses it to the page's body, and whoever
 * pressed it would start again from the top (found by a review). A press while busy, the Enter of
 * a form's field included (a browser submits a form by pressing its button), is dropped.
 */
export function Button({ variant = "primary", busy = false, disabled, children, type = "button", onClick, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      class={`button button--${variant}`}
      disabled={disabled}
      aria-disabled={busy || undefined}
      aria-busy={busy || undefined}
      onClick={busy ? (event) => event.preventDefault() : onClick}
    >
      {children}
    </button>
  );
}

/** A problem that belongs to no one field (or a 429 and when to try again), announced when it appears. */
export function Alert({ problem, children }: { problem?: Problem | null; children?: ComponentChildren }) {
  if (!problem && !children) return null;
  return (
    <div class="alert" role="alert">
      {problem?.message}
      {children}
    </div>
  );
}

/** A price from the API's dollars. */
export function Money({ value }: { value: number }) {
  return <span class="money">{formatDollars(value)}</span>;
}

/** Sets the document's title while a page is shown. */
export function usePageTitle(title: string, site: string) {
  useEffect(() => {
    document.title = title ? `${title} · ${site}` : site;
  }, [title, site]);
}

/** A loading line that is announced politely. */
export function Loading({ what = "Loading…" }: { what?: string }) {
  return (
    <p class="loading" role="status">
      {what}
    </p>
  );
}
