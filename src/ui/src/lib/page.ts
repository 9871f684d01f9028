// The page's globals (document, location), reached through types of their own: the server's unit
// tests import some of the shell's lib files (words, formats, error words), and the server's
// TypeScript has no DOM library (with it, Node's Web Crypto types clash with the DOM's).
interface PageDocument { documentElement: { lang: string; dataset: Record<string, string | undefined> } }
interface PageLocation { protocol: string; host: string }

export function pageDocument(): PageDocument | undefined {
  return (globalThis as { document?: PageDocument }).document;
}

export function pageLocation(): PageLocation {
  return (globalThis as unknown as { location: PageLocation }).location;
}
