// Renders the API reference from this origin only: the bundle is served beside this file, the
// document comes from the API itself, and every feature that would call another origin (web
// fonts, the request proxy, telemetry, the hosted AI agent) is off. The page works offline.
const target = document.getElementById("reference");
window.Scalar.createApiReference(target, {
  url: target.dataset.url,
  withDefaultFonts: false,
  proxyUrl: "",
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: "never",
  agent: { disabled: true },
  documentDownloadType: "json",
});
