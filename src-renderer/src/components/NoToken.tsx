// Shown when the page was opened without the API token that `gamewire serve` prints: the inspector's API
// refuses connections without it, so say where to find the right URL instead of failing silently.
export function NoToken(): React.JSX.Element {
  return (
    <main className="no-token" role="alert">
      <h1>gamewire</h1>
      <p>
        This page needs the address that <code>gamewire serve</code> printed when it started: it ends in <code>?token=…</code>. Open that address (copy it from
        the terminal) to use the inspector.
      </p>
    </main>
  )
}
