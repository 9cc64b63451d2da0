// The first script of iframe-worker's iframe (iframe-worker-shim.js): what the shim wrote inline
// before (iframe-worker 1.0.4, MIT), as a file. The worker's URL comes in data-worker.
(()=>{var u=document.currentScript.dataset.worker;self.postMessage=function(s,n){parent.postMessage(s,n||"*")};self.importScripts=function(...s){return s.reduce((n,e)=>n.then(()=>new Promise(r=>{let t=document.createElement("script");t.src=e,t.onload=r,document.body.appendChild(t)})),Promise.resolve())};addEventListener("error",({error})=>{parent.dispatchEvent(new ErrorEvent("error",{filename:u,error}))})})();
