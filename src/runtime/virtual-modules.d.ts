// Resolved by build.mjs (plugin "cabinet-app-entry") to the application entry, src/main.ts by default.
declare module 'cabinet:app';
