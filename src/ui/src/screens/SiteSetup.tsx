// Placeholder while the screen is built.
export function SiteSetup() {
  return <section class="panel" data-screen="SiteSetup"><h1>SiteSetup</h1></section>;
}
