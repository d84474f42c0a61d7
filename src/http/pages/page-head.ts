/**
 * The opening every page of the service shares, up to its `<body>`: the document type, the
 * viewport, the title and the page's own bundled style and script (served under `assetsPath`).
 * `title` is HTML already (escaped by the caller).
 */
export function pageHead(title: string, assetsPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${assetsPath}/app.css">
<script src="${assetsPath}/app.js" defer></script>
</head>
`;
}
