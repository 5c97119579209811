// Runs before the page is drawn: marks that JavaScript is on, so the
// stylesheet shows the parts that need it (a file, not an inline script, so
// the Content-Security-Policy can forbid inline scripts).
document.documentElement.classList.add("js");
