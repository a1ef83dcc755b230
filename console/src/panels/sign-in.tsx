/**
 * The sign-in form the page shows when the API answers 401: the bearer token, kept for this tab
 * only (sessionStorage), never in a cookie.
 */
import { useState } from 'preact/hooks';

/** Asks for the token; `onToken` gets what was typed. */
export function SignIn(props: { onToken: (token: string) => void; failed: boolean }) {
  const [token, setToken] = useState('');
  return (
    <main class="sign-in">
      <form
        aria-labelledby="sign-in-title"
        onSubmit={(event) => {
          event.preventDefault();
          if (token.trim()) props.onToken(token.trim());
        }}
      >
        <h1 id="sign-in-title">Sign in to the toolshed console</h1>
        <p>
          This console needs the bearer token its server was started with (the environment variable named by
          --token-env, or an OAuth access token with the toolshed:console scope).
        </p>
        {props.failed && (
          <p class="problem" role="alert">
            That token was not accepted.
          </p>
        )}
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <button type="submit">Sign in</button>
        <p class="hint">
          The token is kept in this tab only (sessionStorage) and sent as an Authorization header; the console sets no
          cookie.
        </p>
      </form>
    </main>
  );
}
