"""The ``iframe-worker`` shim a site needs offline (docs/site.md), which Material's
``offline`` plugin would load from unpkg.com: it is written into the site, and
naming it in ``extra.polyfills`` keeps the plugin from adding the CDN URL.
"""

from __future__ import annotations

SHIM_PATH = "assets/offline/iframe-worker-shim.js"

# iframe-worker 1.0.4, shim/index.js (https://github.com/squidfunk/iframe-worker),
# MIT License, Copyright (c) 2020-2022 Martin Donath <martin.donath@squidfunk.com>.
SHIM = (
    "/* iframe-worker 1.0.4 (MIT License, Copyright (c) 2020-2022 Martin Donath) */\n"
    + r""""use strict";(()=>{function c(s,n){parent.postMessage(s,n||"*")}function d(...s){return s.reduce((n,e)=>n.then(()=>new Promise(r=>{let t=document.createElement("script");t.src=e,t.onload=r,document.body.appendChild(t)})),Promise.resolve())}var o=class extends EventTarget{constructor(e){super();this.url=e;this.m=e=>{e.source===this.w&&(this.dispatchEvent(new MessageEvent("message",{data:e.data})),this.onmessage&&this.onmessage(e))};this.e=(e,r,t,i,m)=>{if(r===`${this.url}`){let a=new ErrorEvent("error",{message:e,filename:r,lineno:t,colno:i,error:m});this.dispatchEvent(a),this.onerror&&this.onerror(a)}};let r=document.createElement("iframe");r.hidden=!0,document.body.appendChild(this.iframe=r),this.w.document.open(),this.w.document.write(`<html><body><script>postMessage=${c};importScripts=${d};addEventListener("error",({error})=>{parent.dispatchEvent(new ErrorEvent("error",{filename:"${e}",error}))})<\/script><script src=${e}?${+Date.now()}><\/script></body></html>`),this.w.document.close(),onmessage=this.m,onerror=this.e,this.r=new Promise((t,i)=>{this.w.onload=t,this.w.onerror=i})}terminate(){this.iframe.remove(),onmessage=onerror=null}postMessage(e){this.r.catch().then(()=>{this.w.dispatchEvent(new MessageEvent("message",structuredClone({data:e})))})}get w(){return this.iframe.contentWindow}};window.IFrameWorker=o;location.protocol==="file:"&&(window.Worker=o);})();"""
    + "\n"
)
