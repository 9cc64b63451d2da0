// Material for MkDocs' inline content script (partials/javascripts/content.html), moved to a file
// so that the pages' Content-Security-Policy needs no 'unsafe-inline'.
var target=document.getElementById(location.hash.slice(1));target&&target.name&&(target.checked=target.name.startsWith("__tabbed_"))
