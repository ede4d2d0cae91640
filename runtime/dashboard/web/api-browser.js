// The API browser: Swagger UI over every running service's OpenAPI document, listed by
// /swagger-urls.json (the format Swagger UI takes for its multi-spec selector).

// Descriptions come from manifests and from whatever a component registered: text, never markup.
// Swagger UI renders them as Markdown with inline HTML (sanitised, but an <img> survives and loads),
// so every Markdown component (the core one and the OpenAPI 3 wrapper around it) is replaced by one
// that shows the source as a text node.
function PlainTextDescriptions() {
  return {
    wrapComponents: {
      Markdown: (_Original, system) =>
        function PlainText({ source, className }) {
          if (typeof source !== "string" || source === "") return null;
          return system.React.createElement(
            "div",
            { className: `${className ?? ""} markdown plain-text`, "data-testid": "plain-text", style: { whiteSpace: "pre-wrap" } },
            source,
          );
        },
    },
  };
}

(async () => {
  const status = document.getElementById("browser-status");
  let urls = [];
  try {
    const response = await fetch("/swagger-urls.json");
    if (!response.ok) throw new Error(`the service list answered ${response.status}`);
    urls = await response.json();
  } catch (error) {
    status.textContent = `Could not list services: ${error.message}`;
    return;
  }
  if (urls.length === 0) {
    status.textContent = "No running service serves OpenAPI: start components with MANIFOLD_ENABLE_OPENAPI=true.";
    return;
  }
  status.textContent = `${urls.length} service${urls.length === 1 ? "" : "s"} with OpenAPI`;
  const wanted = new URLSearchParams(location.search).get("service");
  window.ui = SwaggerUIBundle({
    urls,
    "urls.primaryName": urls.some((u) => u.name === wanted) ? wanted : urls[0].name,
    dom_id: "#swagger-ui",
    deepLinking: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
    plugins: [PlainTextDescriptions],
    // Nothing is sent to a third party: the validator badge would call validator.swagger.io.
    validatorUrl: null,
  });
})();
