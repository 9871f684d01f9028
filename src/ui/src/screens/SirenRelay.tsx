// Placeholder while the screen is built.
export function SirenRelay() {
  return <section class="panel" data-screen="SirenRelay"><h1>SirenRelay</h1></section>;
}
