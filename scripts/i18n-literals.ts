// Finds words a person would read that are written in the shell's code instead of coming from the
// catalogue (src/i18n/messages): JSX text, the text attributes (title, aria-label, placeholder,
// alt, label), and string literals that read as prose. A literal that is not for people (a CSS
// class, a route, an API field) passes; one that is for people but must stay as it is (a language's
// own name in the chooser) carries `i18n-ok: <why>` in a comment on its line or the line before.
//
//   npx tsx scripts/i18n-literals.ts [file ...]   (no files: all of src/ui/src)
// test/unit/i18n-literals.test.ts runs it over the whole shell.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface Literal { file: string; line: number; text: string; kind: 'jsx-text' | 'attribute' | 'string' }

const ROOT = new URL('..', import.meta.url).pathname;
export const SHELL_DIR = join(ROOT, 'src/ui/src');

/** Attributes whose value a person reads (or hears, from a screen reader). */
const TEXT_ATTRIBUTES = new Set(['title', 'aria-label', 'aria-description', 'aria-roledescription', 'aria-valuetext', 'placeholder', 'alt', 'label']);
/** Attributes whose value is for the machine. */
const CODE_ATTRIBUTES = /^(class|className|href|src|type|name|id|role|key|for|htmlFor|style|inputMode|autoComplete|autocomplete|method|rel|target|lang|pattern|accept|enterKeyHint|data-.*|aria-(controls|labelledby|describedby|live|current|haspopup|expanded|pressed|selected|hidden|modal|busy|atomic|relevant|orientation|sort|owns|activedescendant|invalid|required|checked|disabled|level|posinset|setsize|valuemin|valuemax|valuenow))$/;
/** Calls whose string arguments are not for people. */
const CODE_CALLS = new Set(['t', 'boxText', 'querySelector', 'querySelectorAll', 'getElementById', 'addEventListener', 'removeEventListener', 'getItem', 'setItem', 'removeItem', 'get', 'post', 'put', 'patch', 'del', 'fetch', 'emit', 'on', 'startsWith', 'endsWith', 'includes', 'split', 'join', 'replace', 'replaceAll', 'matchMedia', 'createElement', 'setAttribute', 'getAttribute', 'toLocaleDateString', 'toLocaleTimeString', 'toLocaleString', 'localSetting', 'setLocalSetting', 'Intl', 'require']);
const CONSOLE = /^console\./;

const hasLetters = (s: string) => /\p{L}{2,}/u.test(s);
/** Reads as prose: two words with a space, or a capitalised word ("Yes", "Energised"). */
const readsAsProse = (s: string) => /\p{L}{2,}[^\S\n]+[\p{L}\d]/u.test(s.trim()) || /^\p{Lu}\p{Ll}+/u.test(s.trim());
/** Machine-looking strings: routes, paths, keys, formats, selectors, media queries. */
const looksLikeCode = (s: string) => /^[a-z0-9 -]+$/.test(s.trim()) && /[a-z]-/.test(s) || /^[/#.?&=:[(@]/.test(s.trim()) || /^[\w.-]+(:[\w.-]+)*$/.test(s.trim()) && !/^\p{Lu}\p{Ll}+$/u.test(s.trim()) || /^(\w+\s*\(.*\)|[\w-]+\s*:\s*[^ ]+;?)$/.test(s.trim()) || /[{}<>]/.test(s) && !/\s\p{L}{2,}\s/u.test(s);

function callName(expr: ts.Expression): string {
  if (ts.isIdentifier(expr)) return expr.text;
  if (ts.isPropertyAccessExpression(expr)) return expr.name.text;
  return '';
}

function fullCallee(expr: ts.Expression, sf: ts.SourceFile): string {
  return expr.getText(sf);
}

function allowedByComment(sf: ts.SourceFile, line: number, lines: string[]): boolean {
  return /i18n-ok/.test(lines[line] ?? '') || /i18n-ok/.test(lines[line - 1] ?? '');
}

/** Whether a string literal sits where its value is code, not words. */
function inCodePosition(node: ts.Node, sf: ts.SourceFile): boolean {
  let child: ts.Node = node;
  let p: ts.Node | undefined = node.parent;
  // Climb through conditionals, parentheses, ?? and || (their strings take the position of the whole).
  while (p && (ts.isConditionalExpression(p) && p.condition !== child || ts.isParenthesizedExpression(p) || ts.isBinaryExpression(p) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.AmpersandAmpersandToken].includes(p.operatorToken.kind) || ts.isAsExpression(p) || ts.isTemplateSpan(p) && false)) {
    child = p;
    p = p.parent;
  }
  if (!p) return false;
  if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isImportTypeNode(p) || ts.isExternalModuleReference(p)) return true;
  if (ts.isLiteralTypeNode(p)) return true; // a type: 'p1' | 'p2'
  if (ts.isPropertyAssignment(p) && p.name === child) return true;
  if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && /^(id|key|path|href|route|icon|tone|kind|type|name|module|field|method|code|class|className|value|format|unit|mode|state|status|role|scope|variant|event|topic|tag|lang|language|locale)$/.test(p.name.text)) return true;
  if (ts.isElementAccessExpression(p)) return true;
  if (ts.isCaseClause(p)) return true;
  if (ts.isBinaryExpression(p) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken, ts.SyntaxKind.InKeyword].includes(p.operatorToken.kind)) return true;
  if (ts.isCallExpression(p) || ts.isNewExpression(p)) {
    const callee = p.expression;
    if (CODE_CALLS.has(callName(callee))) return true;
    if (CONSOLE.test(fullCallee(callee, sf))) return true;
    if (ts.isNewExpression(p) && /^(Error|TypeError|RegExp|URL|URLSearchParams|Date|Intl\..*)$/.test(callee.getText(sf))) return true;
  }
  if (ts.isJsxAttribute(p) || ts.isJsxExpression(p) && p.parent && ts.isJsxAttribute(p.parent)) {
    const attr = (ts.isJsxAttribute(p) ? p : (p.parent as ts.JsxAttribute));
    const name = attr.name.getText(sf);
    return !TEXT_ATTRIBUTES.has(name);
  }
  return false;
}

export function findLiterals(files: string[]): Literal[] {
  const out: Literal[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const rel = relative(ROOT, file);
    const report = (node: ts.Node, value: string, kind: Literal['kind']) => {
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      if (allowedByComment(sf, line, lines)) return;
      out.push({ file: rel, line: line + 1, text: value.trim().slice(0, 80), kind });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isJsxText(node)) {
        if (hasLetters(node.text)) report(node, node.text, 'jsx-text');
      } else if (ts.isJsxAttribute(node) && node.initializer && ts.isStringLiteral(node.initializer)) {
        const name = node.name.getText(sf);
        if (TEXT_ATTRIBUTES.has(name) && hasLetters(node.initializer.text)) report(node, node.initializer.text, 'attribute');
        else if (!CODE_ATTRIBUTES.test(name) && !TEXT_ATTRIBUTES.has(name) && readsAsProse(node.initializer.text) && !looksLikeCode(node.initializer.text)) report(node, node.initializer.text, 'attribute');
        return;
      } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
        const v = node.text;
        if (hasLetters(v) && readsAsProse(v) && !looksLikeCode(v) && !inCodePosition(node, sf)) report(node, v, 'string');
      } else if (ts.isTemplateExpression(node)) {
        const parts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' · ');
        if (hasLetters(parts) && /\p{L}{2,}\s+\p{L}{2,}|^\s*\p{Lu}\p{Ll}+|\s\p{L}{3,}/u.test(parts) && !looksLikeCode(node.head.text || 'x') && !inCodePosition(node, sf)) report(node, parts, 'string');
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

export function shellFiles(dir = SHELL_DIR): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...shellFiles(full));
    else if (/\.(ts|tsx)$/.test(entry) && !entry.endsWith('.d.ts') && entry !== 'sw.ts') out.push(full);
  }
  return out.sort();
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const args = process.argv.slice(2);
  const found = findLiterals(args.length ? args.map((a) => join(process.cwd(), a)) : shellFiles());
  for (const l of found) console.log(`${l.file}:${l.line}  [${l.kind}]  ${l.text}`);
  console.log(`${found.length} literal(s) outside the catalogue`);
  process.exitCode = found.length ? 1 : 0;
}
