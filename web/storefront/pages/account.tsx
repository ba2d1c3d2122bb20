import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type Problem, api, problemFrom, unwrap } from "../../api/client.ts";
import { Alert, Button, TextField, usePageTitle } from "../../shared/ui.tsx";
import { goTo, safeReturn, useSession } from "../session.tsx";

/** Signs in with e-mail and password; the session cookie is set by the answer. */
async function signIn(email: string, password: string): Promise<void> {
  await unwrap(api.POST("/api/auth/callback/credentials", { body: { email, password } }));
}

/** A refused sign-in (401 carries no message of its own) in words a shopper reads. */
function signInProblem(error: unknown): Problem {
  const problem = problemFrom(error);
  return problem.status === 401 ? { ...problem, message: "The e-mail or the password is not right." } : problem;
}

export function SignIn() {
  usePageTitle("Sign in", "Storefront");
  const { query, route } = useLocation();
  const { refresh } = useSession();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const back = safeReturn(query.return);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await signIn(email, password);
      await refresh();
      goTo(back, route);
    } catch (error) {
      setProblem(signInProblem(error));
    } finally {
      setBusy(false);
    }
  }
  const general = problem && Object.keys(problem.fields).length === 0 ? problem : null;
  return (
    <>
      <h1>Sign in</h1>
      <form class="form panel" onSubmit={submit} noValidate>
        <Alert problem={general} />
        <TextField label="E-mail" name="email" type="email" autoComplete="email" required value={email} onValue={setEmail} error={problem?.fields.email} />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onValue={setPassword}
          error={problem?.fields.password}
        />
        <div class="actions">
          <Button type="submit" busy={busy}>
            Sign in
          </Button>
          <a href={`/register${back === "/" ? "" : `?return=${encodeURIComponent(back)}`}`}>New here? Create an account</a>
        </div>
      </form>
    </>
  );
}

export function Register() {
  usePageTitle("Create an account", "Storefront");
  const { query, route } = useLocation();
  const { refresh } = useSession();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const back = safeReturn(query.return);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await unwrap(api.POST("/api/auth/register", { body: { email, password, ...(name.trim() ? { name: name.trim() } : {}) } }));
      await signIn(email, password);
      await refresh();
      goTo(back, route);
    } catch (error) {
      const found = problemFrom(error);
      // An e-mail already registered is the e-mail field's problem.
      setProblem(found.status === 409 ? { ...found, fields: { ...found.fields, email: found.message } } : found);
    } finally {
      setBusy(false);
    }
  }
  const general = problem && Object.keys(problem.fields).length === 0 ? problem : null;
  return (
    <>
      <h1>Create an account</h1>
      <form class="form panel" onSubmit={submit} noValidate>
        <Alert problem={general} />
        <TextField label="Name (optional)" name="name" autoComplete="name" value={name} onValue={setName} error={problem?.fields.name} />
        <TextField label="E-mail" name="email" type="email" autoComplete="email" required value={email} onValue={setEmail} error={problem?.fields.email} />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          hint="At least 8 characters; a common password is refused."
          value={password}
          onValue={setPassword}
          error={problem?.fields.password}
        />
        <div class="actions">
          <Button type="submit" busy={busy}>
            Create account
          </Button>
          <a href={`/signin${back === "/" ? "" : `?return=${encodeURIComponent(back)}`}`}>Have an account? Sign in</a>
        </div>
      </form>
    </>
  );
}
