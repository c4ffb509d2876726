/** Sign in with an API key: checked against /api/whoami, then kept in sessionStorage only. */
import { useState } from 'preact/hooks';
import { whoami } from '../api';
import { storeKey, type Session } from '../session';
import { ErrorBox, Field, useAction } from '../ui';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const action = useAction();
  const submit = () => action.run(async () => {
    const trimmed = key.trim();
    const who = await whoami({ key: trimmed });
    storeKey(trimmed);
    setKey('');
    onSignedIn({ key: trimmed, who });
  });
  return (
    <main id="main" class="sign-in">
      <h1>RuleVault console</h1>
      <form class="panel" aria-label="Sign in" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <Field label="API key" hint="Kept in this tab's session storage only, until you sign out or close the tab.">{(id, hint) => (
          <input id={id} type="password" autocomplete="off" spellcheck={false} aria-describedby={hint} required value={key}
            onInput={(e) => setKey(e.currentTarget.value)} />
        )}</Field>
        <button type="submit" disabled={action.busy}>{action.busy ? 'Signing in…' : 'Sign in'}</button>
        <ErrorBox error={action.error} />
      </form>
    </main>
  );
}
