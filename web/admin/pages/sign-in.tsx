import { useState } from "preact/hooks";
import { type Problem, api, run } from "../api.ts";
import { Field, PageTitle, ProblemNote } from "../components/ui.tsx";

/** Staff sign in with the shop's own sign-in (POST /api/auth/callback/credentials), then the profile says what they may do. */
export function SignInPage({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  async function signIn(event: Event) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    const outcome = await run(
      api.POST("/api/auth/callback/credentials", { body: { email: String(form.get("email")), password: String(form.get("password")) } }),
    );
    setBusy(false);
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    await onSignedIn();
  }

  return (
    <section class="narrow">
      <PageTitle>Sign in to the back office</PageTitle>
      <form onSubmit={signIn} noValidate>
        <ProblemNote problem={problem} fields={["email", "password"]} />
        <Field id="email" label="E-mail" type="email" autocomplete="username" required error={problem?.fields.email} />
        <Field id="password" label="Password" type="password" autocomplete="current-password" required error={problem?.fields.password} />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </section>
  );
}
