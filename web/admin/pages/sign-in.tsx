import { useState } from "preact/hooks";
import { Button, usePageTitle } from "../../shared/ui.tsx";
import { type Problem, api, run } from "../api.ts";
import { Input, ProblemNote } from "../components/ui.tsx";
import { SITE } from "../session.ts";

/** Staff sign in with the shop's own sign-in (POST /api/auth/callback/credentials); then the profile says what they may do. */
export function SignInPage({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  usePageTitle("Sign in", SITE);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  async function signIn(event: Event) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setProblem(null);
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
    <section>
      <h1>Sign in to the back office</h1>
      <form class="form" onSubmit={signIn} noValidate>
        <ProblemNote problem={problem} fields={["email", "password"]} />
        <Input label="E-mail" name="email" type="email" autocomplete="username" required error={problem?.fields.email} />
        <Input label="Password" name="password" type="password" autocomplete="current-password" required error={problem?.fields.password} />
        <div class="actions">
          <Button type="submit" busy={busy}>
            Sign in
          </Button>
        </div>
      </form>
    </section>
  );
}
