#!/usr/bin/env python3
"""realworld_requests.py: the requests real clients send, side by side.

Serves each configuration of a tree prepared by
../shared/nginx-configs/real-world/prepare.sh (one directory per entry
holding nginx.conf) with Debian's NGINX and then with mosaic, sends both the
same raw requests over fresh connections (byte ranges and If-Range,
If-None-Match and If-Modified-Since, directories without their slash,
percent-encoded and dot-dot paths, HEAD and GET with Accept-Encoding on a
2.6 MB text file, HTTP/1.0, OPTIONS and unknown methods, malformed
requests, dotfiles, redirects with query strings, error pages) and compares
the status, the headers NGINX defines (HDRS) and the body: decoded from
gzip or br; for error pages NGINX's footer reads as mosaic's; multipart
boundaries are masked. Probe files are written into every root without
variables, as realworld.sh does. Upstreams are not running: gateways answer
502 on both. Needs root (ports 80, 443, 8000, 8448), python3, brotli and
/usr/sbin/nginx; stops each server it started.

    internal/bench/realworld_requests.py PREPARED_DIR MOSAIC_BINARY [ENTRY...]
"""
import glob, gzip, hashlib, os, re, socket, ssl, subprocess, sys, time

DIR = sys.argv[1]; MOSAIC = sys.argv[2]
ONLY = sys.argv[3:]  # substrings of the entries to run; none: all
HDRS = ['location','content-range','content-length','last-modified','etag','cache-control',
        'expires','content-type','vary','allow','content-encoding','accept-ranges','transfer-encoding',
        'x-frame-options','x-content-type-options','x-xss-protection','x-robots-tag',
        'x-permitted-cross-domain-policies','referrer-policy','strict-transport-security',
        'content-security-policy','permissions-policy','access-control-allow-origin','connection',
        'cross-origin-resource-policy','cross-origin-opener-policy','cross-origin-embedder-policy','timing-allow-origin','www-authenticate']

def seed(entry):
    roots=set()
    for f in glob.glob(entry+'/**', recursive=True):
        if not os.path.isfile(f): continue
        try: t=open(f,errors='replace').read()
        except: continue
        for m in re.finditer(r'\broot\s+(/[^;$]+);', t): roots.add(m.group(1).strip())
    for r in roots:
        for d in ['sub','noindex','.well-known/acme-challenge','.git']: os.makedirs(f'{r}/{d}',exist_ok=True)
        W=lambda p,s: open(f'{r}/{p}','w').write(s)
        W('index.html',f'index of {r}\n'); W('sub/index.html','sub index\n'); W('robots.txt','User-agent: *\n')
        W('style.css','body{color:red}\n'*40); W('app.js','var a=1;\n'); W('image.png','\0'*300)
        W('.htaccess','deny\n'); W('backup.bak','old\n'); W('favicon.ico','ico\n'); W('.env','SECRET=1\n')
        W('.well-known/acme-challenge/token','token\n'); W('.git/config','[core]\n'); W('sub/.hidden','h\n')
        W('noindex/a.txt','a\n'); W('404.html','custom 404\n'); W('50x.html','custom 50x\n'); W('500.html','custom 500\n')
        W('big.txt',''.join(f'line {i} of a large compressible text file\n' for i in range(60000)))
        W('a b.txt','space\n')
    return roots

def endpoints(entry):
    txt=''
    for f in glob.glob(entry+'/**', recursive=True):
        if os.path.isfile(f):
            try: txt+=open(f,errors='replace').read()+'\n'
            except: pass
    host='localhost'
    chunks=[c for c in re.split(r'\bserver\s*\{',txt) if not re.search(r'^\s*return\s+30[12]',c[:600],re.M)]
    for m in re.finditer(r'^\s*server_name\s+([^;]+)', '\n'.join(chunks), re.M):
        for n in m.group(1).split():
            if n not in ('_',) and not re.search(r'[*~]',n): host=n; break
        if host!='localhost': break
    eps=set()
    for m in re.finditer(r'^\s*listen\s+([^;]+)', txt, re.M):
        parts=m.group(1).split()
        if '[' in parts[0]: continue
        p=parts[0].split(':')[-1]
        if not p.isdigit(): continue
        eps.add(('https' if 'ssl' in parts else 'http', int(p), host))
    if not eps: eps.add(('http',80,host))
    return sorted(eps)

def send(scheme, port, raw, timeout=4):
    try: s=socket.create_connection(('127.0.0.1',port),timeout=timeout)
    except OSError as e: return 'CONNECT/'+type(e).__name__
    if scheme=='https':
        c=ssl.create_default_context(); c.check_hostname=False; c.verify_mode=ssl.CERT_NONE
        c.set_alpn_protocols(['http/1.1'])
        s=c.wrap_socket(s, server_hostname=HOSTSNI)
    s.sendall(raw); buf=b''
    try:
        while True:
            d=s.recv(65536)
            if not d: break
            buf+=d
    except Exception as e:
        buf+=b'' ; 
        if not buf: return 'TIMEOUT/'+type(e).__name__
    s.close(); return buf

def dechunk(b):
    out=b''
    while b:
        i=b.find(b'\r\n'); 
        if i<0: return out+b'<TRUNC>'
        n=int(b[:i].split(b';')[0],16)
        if n==0: return out
        out+=b[i+2:i+2+n]; b=b[i+4+n:]
    return out

def parse(buf, head):
    if isinstance(buf,str): return {'status':buf}
    if not buf: return {'status':'EMPTY'}
    i=buf.find(b'\r\n\r\n')
    if i<0: return {'status':'NOHDR '+repr(buf[:40])}
    lines=buf[:i].decode('latin1').split('\r\n'); body=buf[i+4:]
    foot=re.search(rb'<center>nginx(/1\.22\.1)?</center>',body)
    if foot:
        delta=len(foot.group(0))-len(b'<center>mosaic</center>')
        body=body.replace(foot.group(0),b'<center>mosaic</center>')
        lines=[re.sub(r'^(Content-Length: )(\d+)$',lambda m:m.group(1)+str(int(m.group(2))-delta),l) for l in lines]
    st=lines[0].split(' ',2)
    h={}
    for l in lines[1:]:
        k,_,v=l.partition(':'); k=k.lower().strip(); v=v.strip()
        h[k]=h[k]+' | '+v if k in h else v
    r={'status':st[1] if len(st)>1 else lines[0], 'proto':st[0]}
    if 'chunked' in h.get('transfer-encoding',''): body=dechunk(body)
    enc=h.get('content-encoding','')
    if not head and body:
        try:
            if enc=='gzip': body=gzip.decompress(body)
            elif enc=='br':
                p=subprocess.run(['brotli','-dc'],input=body,capture_output=True); body=p.stdout
        except Exception as e: body=b'BADENC'
    ct=h.get('content-type','')
    bnd=re.search(r'boundary=(\S+)',ct)
    if bnd:
        body=body.replace(bnd.group(1).encode(),b'BOUNDARY'); h['content-type']=ct.replace(bnd.group(1),'BOUNDARY')
        if 'content-length' in h: h['content-length']='(multipart)'
    for k in HDRS:
        if k in h:
            v=h[k]
            if k=='content-length' and enc and not head: v='(encoded)'
            if k=='content-length' and head and st[1:] and st[1][0] in '345': v='(head error page)'
            if k=='expires' or k=='cache-control': v=re.sub(r'\b\d{2}:\d{2}:\d{2}\b','HH:MM:SS',v)
            r[k]=v
    s=r['status']
    if not head:
        if s[:1] in '123' or body.startswith(b'custom'): r['body']=hashlib.md5(body).hexdigest()[:8]+f'/{len(body)}'
        else: r['body']='err/'+str(len(body))
    return r

def reqs(host, port, meta):
    H=f'Host: {host}\r\n'; C='Connection: close\r\n'
    etag=meta.get('etag',''); lm=meta.get('lm','')
    def g(path, extra='', m='GET', ver='HTTP/1.1', host=True, close=True):
        return f'{m} {path} {ver}\r\n'+(H if host else '')+extra+(C if close else '')+'\r\n'
    R=[
     ('range single', g('/style.css','Range: bytes=0-4\r\n')),
     ('range suffix', g('/style.css','Range: bytes=-5\r\n')),
     ('range open', g('/style.css','Range: bytes=600-\r\n')),
     ('range multi', g('/style.css','Range: bytes=0-1,4-6\r\n')),
     ('range overlap', g('/style.css','Range: bytes=0-5,3-8\r\n')),
     ('range unsat', g('/style.css','Range: bytes=10000-20000\r\n')),
     ('range bad', g('/style.css','Range: bytes=5-1\r\n')),
     ('range junk', g('/style.css','Range: items=0-4\r\n')),
     ('if-range etag', g('/style.css',f'Range: bytes=0-4\r\nIf-Range: {etag}\r\n')),
     ('if-range wrong', g('/style.css','Range: bytes=0-4\r\nIf-Range: "nope"\r\n')),
     ('if-range date', g('/style.css',f'Range: bytes=0-4\r\nIf-Range: {lm}\r\n')),
     ('if-range olddate', g('/style.css','Range: bytes=0-4\r\nIf-Range: Mon, 01 Jan 2001 00:00:00 GMT\r\n')),
     ('range big', g('/big.txt','Range: bytes=1000000-1000010\r\n')),
     ('range gzip', g('/big.txt','Range: bytes=0-10\r\nAccept-Encoding: gzip\r\n')),
     ('inm', g('/style.css',f'If-None-Match: {etag}\r\n')),
     ('inm weak', g('/style.css',f'If-None-Match: W/{etag}\r\n')),
     ('inm star', g('/style.css','If-None-Match: *\r\n')),
     ('inm other', g('/style.css','If-None-Match: "x"\r\n')),
     ('ims', g('/style.css',f'If-Modified-Since: {lm}\r\n')),
     ('ims old', g('/style.css','If-Modified-Since: Mon, 01 Jan 2001 00:00:00 GMT\r\n')),
     ('ims future', g('/style.css','If-Modified-Since: Mon, 01 Jan 2035 00:00:00 GMT\r\n')),
     ('ims bad', g('/style.css','If-Modified-Since: garbage\r\n')),
     ('ius old', g('/style.css','If-Unmodified-Since: Mon, 01 Jan 2001 00:00:00 GMT\r\n')),
     ('im wrong', g('/style.css','If-Match: "x"\r\n')),
     ('inm index', g('/',f'If-None-Match: {meta.get("etag_idx","")}\r\n')),
     ('ims index', g('/index.html',f'If-Modified-Since: {meta.get("lm_idx","")}\r\n')),
     ('dir noslash', g('/sub')),
     ('dir noslash args', g('/sub?x=1&y=2')),
     ('dir noslash 1.0', g('/sub','', ver='HTTP/1.0', host=False, close=False)),
     ('dir noslash port host', g('/sub','',host=False, close=True).replace('Connection',f'Host: {host}:{port}\r\nConnection')),
     ('dir noindex', g('/noindex/')),
     ('dir noindex noslash', g('/noindex')),
     ('dotdot enc', g('/%2e%2e/%2e%2e/etc/passwd')),
     ('dotdot enc sub', g('/sub/%2e%2e/style.css')),
     ('dotdot plain sub', g('/sub/../style.css')),
     ('dotdot above', g('/../style.css')),
     ('slash enc', g('/sub%2Findex.html')),
     ('double slash', g('//style.css')),
     ('double slash sub', g('/sub//index.html')),
     ('dot seg', g('/./style.css')),
     ('pct letter', g('/%73tyle.css')),
     ('pct space', g('/a%20b.txt')),
     ('pct null', g('/style.css%00')),
     ('pct bad', g('/style%zz.css')),
     ('dotdot enc slash', g('/sub/..%2fstyle.css')),
     ('backslash', g('/sub\\..\\style.css')),
     ('head gzip css', g('/style.css','Accept-Encoding: gzip\r\n','HEAD')),
     ('head br css', g('/style.css','Accept-Encoding: br\r\n','HEAD')),
     ('head gzip big', g('/big.txt','Accept-Encoding: gzip, br\r\n','HEAD')),
     ('get gzip big', g('/big.txt','Accept-Encoding: gzip\r\n')),
     ('get br big', g('/big.txt','Accept-Encoding: br\r\n')),
     ('get plain big', g('/big.txt')),
     ('get gzip css', g('/style.css','Accept-Encoding: gzip\r\n')),
     ('get gzip index', g('/','Accept-Encoding: gzip\r\n')),
     ('get gzip q0', g('/big.txt','Accept-Encoding: gzip;q=0\r\n')),
     ('http10', g('/style.css','',ver='HTTP/1.0',host=False,close=False)),
     ('http10 host', g('/style.css','',ver='HTTP/1.0',close=False)),
     ('http10 gzip', g('/big.txt','Accept-Encoding: gzip\r\n',ver='HTTP/1.0',close=False)),
     ('http10 keepalive', g('/robots.txt','',ver='HTTP/1.0',close=False).replace('\r\n\r\n','\r\nConnection: keep-alive\r\n\r\n')),
     ('options', g('/','', 'OPTIONS')),
     ('options star', g('*','', 'OPTIONS')),
     ('options file', g('/style.css','', 'OPTIONS')),
     ('patch', g('/style.css','Content-Length: 0\r\n', 'PATCH')),
     ('delete', g('/style.css','', 'DELETE')),
     ('post static', g('/style.css','Content-Length: 0\r\n', 'POST')),
     ('put', g('/style.css','Content-Length: 0\r\n', 'PUT')),
     ('unknown', g('/','', 'FOO')),
     ('trace', g('/','', 'TRACE')),
     ('lower method', g('/','', 'get')),
     ('nohost 1.1', g('/','',host=False)),
     ('two hosts', g('/','Host: other\r\n')),
     ('bad host', g('/','',host=False).replace('Connection','Host: a/b\r\nConnection')),
     ('bad header', g('/','Bad Header: x\r\n')),
     ('http2 ver', g('/','',ver='HTTP/2.0')),
     ('http09', 'GET /\r\n'),
     ('bad ver', g('/','',ver='HTTP/1.x')),
     ('uri long', g('/'+'a'*9000)),
     ('cl neg', g('/','Content-Length: -1\r\n','POST')),
     ('te cl', g('/','Content-Length: 3\r\nTransfer-Encoding: chunked\r\n','POST')+'0\r\n\r\n'),
     ('te gzip', g('/','Transfer-Encoding: gzip\r\n','POST')),
     ('space uri', g('/a b.txt')),
     ('abs uri', f'GET http://{host}/robots.txt HTTP/1.1\r\nHost: other\r\nConnection: close\r\n\r\n'),
     ('deny htaccess', g('/.htaccess')),
     ('deny git', g('/.git/config')),
     ('deny env', g('/.env')),
     ('deny sub hidden', g('/sub/.hidden')),
     ('deny bak', g('/backup.bak')),
     ('acme', g('/.well-known/acme-challenge/token')),
     ('wk carddav', g('/.well-known/carddav?x=1')),
     ('wk unknown', g('/.well-known/foo?x=1')),
     ('args root', g('/?a=1&b=2')),
     ('missing', g('/missing')),
     ('missing args', g('/missing?x=1')),
     ('missing php', g('/missing.php')),
     ('50x', g('/50x.html')),
     ('404 page', g('/404.html')),
     ('index.php', g('/index.php?x=1')),
     ('static prefix', g('/static/x.css?v=1')),
     ('other host', g('/?q=1','',host=False).replace('Connection','Host: www.example.com\r\nConnection')),
     ('r1', g('/r1?a=1&b=2')), ('r2', g('/r2/x?a=1')), ('r3', g('/r3?a=1')), ('r4', g('/r4?a=1')), ('r5', g('/r5?a=1')),
     ('boom', g('/boom')), ('p', g('/p')), ('sub dslash', g('//sub')), ('sub dslash2', g('/sub//')),
     ('unknown host', g('/robots.txt','',host=False).replace('Connection','Host: unknown.test\r\nConnection')),
    ]
    return R

def startsrv(cmd):
    p=subprocess.Popen(cmd,stdout=subprocess.DEVNULL,stderr=subprocess.PIPE)
    time.sleep(0.8)
    if p.poll() is not None: return None, p.stderr.read().decode()[-300:]
    return p, None

def probe_all(eps, meta):
    out={}
    global HOSTSNI
    for scheme,port,host in eps:
        HOSTSNI=host
        m=meta.get((scheme,port,host),{})
        for name,raw in reqs(host,port,m):
            head=raw.startswith('HEAD')
            out[(scheme,port,name)]=parse(send(scheme,port,raw.encode('latin1')),head)
    return out

def getmeta(eps):
    global HOSTSNI
    meta={}
    for scheme,port,host in eps:
        HOSTSNI=host
        m={}
        for path,ke,kl in [('/style.css','etag','lm'),('/index.html','etag_idx','lm_idx')]:
            r=parse(send(scheme,port,f'GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n'.encode()),False)
            m[ke]=r.get('etag',''); m[kl]=r.get('last-modified','')
        meta[(scheme,port,host)]=m
    return meta

tot=same=0
for conf in sorted(glob.glob(DIR+'/*/nginx.conf')):
    entry=os.path.dirname(conf); name=os.path.basename(entry)
    if ONLY and not any(o in name for o in ONLY): continue
    seed(entry); eps=endpoints(entry)
    p,err=startsrv(['/usr/sbin/nginx','-c',conf,'-g','daemon off; master_process off;'])
    if not p: print(name,'nginx fails',err); continue
    try: meta=getmeta(eps); a=probe_all(eps,meta)
    finally: p.terminate(); p.wait()
    p,err=startsrv([MOSAIC,'-c',conf])
    if not p: print(name,'mosaic fails',err); continue
    try: b=probe_all(eps,meta)
    finally: p.terminate(); p.wait()
    n=0;d=0
    diffs=[]
    for k in a:
        n+=1
        if a[k]!=b[k]:
            d+=1
            keys=sorted(set(a[k])|set(b[k]))
            diffs.append(f'  {k[0]}:{k[1]} {k[2]}: '+'; '.join(f'{x}: N={a[k].get(x)!r} M={b[k].get(x)!r}' for x in keys if a[k].get(x)!=b[k].get(x)))
    tot+=n; same+=n-d
    print(f'{name}: {n-d}/{n} same'); print('\n'.join(diffs))
print(f'all: {same}/{tot}')
