// Material for MkDocs' inline head script (partials/javascripts/base.html), moved to a file so that
// the pages' Content-Security-Policy needs no 'unsafe-inline'. The scope is the site's root: this
// file lies at <root>/assets/js/, whatever the depth of the page that loads it. Its own element is
// read through Document.prototype: a page's <img name="currentScript"> hides document.currentScript.
__md_scope=new URL("../..",Object.getOwnPropertyDescriptor(Document.prototype,"currentScript").get.call(document).src),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}
