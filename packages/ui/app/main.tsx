/** The app: sign-in gate, layout and routes (SPEC's web application URLs). */
import "./styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from "preact-iso";
import { sessionKey, UNAUTHORIZED_EVENT } from "./api";
import { Layout } from "./layout";
import { Login } from "./pages/login";
import { SourcesPage } from "./pages/sources";

// Pages other than the list load on demand, so /sources starts small.
const NewSource = lazy(() => import("./pages/source-new").then((m) => m.NewSourcePage));
const SourcePage = lazy(() => import("./pages/source").then((m) => m.SourcePage));
const WebhooksPage = lazy(() => import("./pages/webhooks").then((m) => m.WebhooksPage));
const WebhookPage = lazy(() => import("./pages/webhook").then((m) => m.WebhookPage));
const AccountsPage = lazy(() => import("./pages/accounts").then((m) => m.AccountsPage));
const OAuthClientsPage = lazy(() => import("./pages/oauth-clients").then((m) => m.OAuthClientsPage));
const WorkflowsPage = lazy(() => import("./pages/workflows").then((m) => m.WorkflowsPage));
const WorkflowPage = lazy(() => import("./pages/workflow").then((m) => m.WorkflowPage));
const WorkflowEditorPage = lazy(() => import("./pages/workflow-editor").then((m) => m.WorkflowEditorPage));
const EnvPage = lazy(() => import("./pages/env").then((m) => m.EnvPage));
const DataStoresPage = lazy(() => import("./pages/data-stores").then((m) => m.DataStoresPage));

function Redirect({ to }: { to: string }) {
  const { route } = useLocation();
  useEffect(() => route(to, true), [to, route]);
  return null;
}

function NotFound() {
  return (
    <section>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is no page here. Go to <a href="/sources">Sources</a>.
      </p>
    </section>
  );
}

function App() {
  const { path, url, route } = useLocation();
  const [signedIn, setSignedIn] = useState(() => sessionKey() !== null);
  useEffect(() => {
    const onUnauthorized = () => setSignedIn(false);
    window.addEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
  }, []);

  if (!signedIn) {
    return (
      <Login
        next={path === "/login" ? "/sources" : url}
        onSignedIn={(next) => {
          setSignedIn(true);
          route(next, true);
        }}
      />
    );
  }
  return (
    <Layout onSignOut={() => setSignedIn(false)}>
      <ErrorBoundary>
        <Router>
          <Route path="/" component={() => <Redirect to="/sources" />} />
          <Route path="/login" component={() => <Redirect to="/sources" />} />
          <Route path="/sources" component={SourcesPage} />
          <Route path="/sources/new" component={NewSource} />
          <Route path="/sources/:id" component={SourcePage} />
          <Route path="/webhooks" component={WebhooksPage} />
          <Route path="/webhooks/:id" component={WebhookPage} />
          <Route path="/accounts" component={AccountsPage} />
          <Route path="/oauth-clients" component={OAuthClientsPage} />
          <Route path="/workflows" component={WorkflowsPage} />
          <Route path="/workflows/new" component={WorkflowEditorPage} />
          <Route path="/workflows/:id/edit" component={WorkflowEditorPage} />
          <Route path="/workflows/:id" component={WorkflowPage} />
          <Route path="/settings/env" component={EnvPage} />
          <Route path="/data-stores" component={DataStoresPage} />
          <Route default component={NotFound} />
        </Router>
      </ErrorBoundary>
    </Layout>
  );
}

render(
  <LocationProvider>
    <App />
  </LocationProvider>,
  document.getElementById("app") as HTMLElement,
);
