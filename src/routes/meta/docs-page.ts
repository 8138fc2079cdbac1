/**
 * The API reference page. Everything it loads comes from this Worker's own origin: the page, the
 * reference bundle and its start-up script (Workers static assets under /docs/, see
 * scripts/prepare-assets.mjs) and the OpenAPI document. So it renders with no internet, and its
 * Content-Security-Policy can forbid every other origin and every inline script. (Styles stay
 * 'unsafe-inline': the bundle injects its own style elements at run time.)
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const DOCS_TITLE = "Analytics Metadata Administration API";

const escapeAttribute = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** `documentUrl`: where the page fetches the document (the context path's /api/openapi.json). */
export function docsPage(documentUrl: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${DOCS_TITLE}</title>
  </head>
  <body>
    <div id="reference" data-url="${escapeAttribute(documentUrl)}"></div>
    <script src="/docs/scalar.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;
}
