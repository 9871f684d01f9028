// Placeholder while the screen is built.
export function Notifications() {
  return <section class="panel" data-screen="Notifications"><h1>Notifications</h1></section>;
}
