/** The shell: sign-in gate, navigation by what the key's scopes allow, and the page for the route. */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { whoami, type Api, type Scope } from './api';
import { ApiKeysPage } from './pages/api-keys';
import { ChangeRequestPage, ChangeRequestsPage } from './pages/change-requests';
import { AsOfPage, DigestPage, EventsPage, HistoryPage } from './pages/audit';
import { VerificationPage } from './pages/audit-chain';
import { DecisionPage, SecretReadsPage } from './pages/audit-records';
import { ContextsPage } from './pages/contexts';
import { PromptPage, PromptsPage } from './pages/prompts';
import { RuleEditorPage, RulesPage } from './pages/rules';
import { SecretsPage } from './pages/secrets';
import { SignIn } from './pages/sign-in';
import { TestPanel } from './pages/test-panel';
import { href, useRoute } from './router';
import { can, forgetKey, SCOPE_ALLOWS, storedKey, type Session } from './session';
import { ErrorBox, Loading } from './ui';

/** Each page and the scopes that open it (any one of them; none: every key). */
const NAV: readonly { id: string; label: string; scopes: readonly Scope[] }[] = [
  { id: 'rules', label: 'Rules', scopes: ['admin'] },
  { id: 'test', label: 'Test panel', scopes: [] },
  { id: 'contexts', label: 'Contexts', scopes: ['admin'] },
  { id: 'prompts', label: 'Prompts', scopes: ['admin'] },
  { id: 'changes', label: 'Change requests', scopes: ['admin', 'approve'] },
  { id: 'secrets', label: 'Secrets', scopes: ['admin'] },
  { id: 'keys', label: 'API keys', scopes: ['admin'] },
  { id: 'audit', label: 'Audit', scopes: ['admin'] },
];

const opens = (session: Session, scopes: readonly Scope[]) => scopes.length === 0 || scopes.some((s) => can(session, s));

export function App() {
  const [session, setSession] = useState<Session | undefined>();
  const [restoring, setRestoring] = useState(() => storedKey() !== undefined);
  const [restoreError, setRestoreError] = useState<Error | undefined>();

  // A reload keeps the tab's key: check it again (it may have been revoked meanwhile).
  useEffect(() => {
    const key = storedKey();
    if (key === undefined) return;
    whoami({ key }).then((who) => setSession({ key, who }), (error: Error) => {
      forgetKey();
      setRestoreError(error);
    }).finally(() => setRestoring(false));
  }, []);

  if (restoring) return <main id="main"><Loading what="your session" /></main>;
  if (session === undefined) {
    return <>{restoreError !== undefined && <ErrorBox error={restoreError} />}<SignIn onSignedIn={setSession} /></>;
  }
  return <Signed session={session} onSignOut={() => { forgetKey(); setSession(undefined); }} />;
}

function Signed({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const api: Api = useMemo(() => ({ key: session.key }), [session.key]);
  const admin = can(session, 'admin');
  const page = route[0] ?? (admin ? 'rules' : can(session, 'approve') ? 'changes' : 'test');
  const main = useRef<HTMLElement>(null);
  const shown = useRef(route.join('/'));
  // A new page takes the focus to its content, so a keyboard or screen reader user starts there, not at the top.
  // In the commit that renders the page (a layout effect): an effect after paint could take the focus from a
  // field the user had already reached and drop what they typed. A focus already inside the page stays.
  useLayoutEffect(() => {
    if (shown.current === route.join('/')) return;
    shown.current = route.join('/');
    if (!main.current?.contains(document.activeElement)) main.current?.focus();
  }, [route]);
  return (
    <>
      {/* Not an #anchor: the hash is the route. */}
      <a class="skip" href="#/" onClick={(e) => { e.preventDefault(); main.current?.focus(); }}>Skip to content</a>
      <header>
        <span class="brand">RuleVault</span>
        <nav aria-label="Main">
          {NAV.filter((n) => opens(session, n.scopes)).map((n) => (
            <a key={n.id} href={href(n.id)} aria-current={page === n.id ? 'page' : undefined}>{n.label}</a>
          ))}
        </nav>
        <details class="who">
          <summary>{session.who.name}</summary>
          <div class="who-panel" aria-label="What this key may do">
            <p>Key <code>{session.who.id}</code>{session.who.secret_tags.length > 0 && <> · secret tags {session.who.secret_tags.join(', ')}</>}</p>
            <ul>{session.who.scopes.map((s) => <li key={s}><strong>{s}</strong>: {SCOPE_ALLOWS[s]}</li>)}</ul>
          </div>
        </details>
        <button type="button" class="secondary" onClick={onSignOut}>Sign out</button>
      </header>
      <p class="scopes" aria-label="Scopes">Signed in as <strong>{session.who.name}</strong> with {session.who.scopes.join(', ')}</p>
      <main id="main" tabIndex={-1} ref={main}>
        <Page api={api} session={session} route={[page, ...route.slice(1)]} />
      </main>
    </>
  );
}

/** The test panel on its own: over the live rules (an admin key dry-runs them; others evaluate). Names come from the answer. */
function TestPage({ api, session }: { api: Api; session: Session }) {
  const names = useMemo(() => new Map<string, string>(), []);
  return (
    <section aria-labelledby="test-page-title">
      <h2 id="test-page-title">Test panel</h2>
      {!can(session, 'evaluate') && !can(session, 'admin') && <p class="hint">This key lacks the evaluate scope: tests will be refused.</p>}
      <TestPanel api={api} scopes={session.who.scopes} names={names} />
    </section>
  );
}

function Page({ api, session, route }: { api: Api; session: Session; route: string[] }) {
  const [page, a, b] = route;
  if (page === 'test') return <TestPage api={api} session={session} />;
  if (page === 'changes' && opens(session, ['admin', 'approve'])) {
    return a === undefined ? <ChangeRequestsPage api={api} session={session} /> : <ChangeRequestPage key={a} api={api} session={session} id={a} />;
  }
  if (!can(session, 'admin')) return <p class="error" role="alert">This page needs a key with the admin scope.</p>;
  switch (page) {
    case 'rules': return a === undefined ? <RulesPage api={api} /> : <RuleEditorPage api={api} scopes={session.who.scopes} id={a === 'new' ? undefined : a} />;
    case 'contexts': return <ContextsPage api={api} />;
    case 'prompts': return a === undefined ? <PromptsPage api={api} /> : <PromptPage api={api} id={a} />;
    case 'secrets': return <SecretsPage api={api} />;
    case 'keys': return <ApiKeysPage api={api} />;
    case 'audit':
      switch (a) {
        case 'events': return <EventsPage api={api} />;
        case 'as-of': return <AsOfPage api={api} />;
        case 'digest': return <DigestPage api={api} />;
        case 'chain': return <VerificationPage api={api} />;
        case 'decisions': return <DecisionPage api={api} id={b} />;
        case 'reads': return <SecretReadsPage api={api} />;
        default: return <HistoryPage api={api} ruleId={b} />;
      }
    default: return <p role="alert">No page here. <a href={href('rules')}>Go to rules</a>.</p>;
  }
}
