#!/usr/bin/env python3
# Independent transcription of MS-RDPBCGR 5.3.5.1 (session keys), 5.3.6.1/5.3.6.1.1 (MAC) and
# 5.3.7.1 (key update) in Python: the source of the vectors in latlab-rdp/src/security.rs.
import hashlib
def md5(*p): return hashlib.md5(b''.join(p)).digest()
def sha(*p): return hashlib.sha1(b''.join(p)).digest()
def rc4(key, data):
    S=list(range(256)); j=0
    for i in range(256):
        j=(j+S[i]+key[i%len(key)])%256; S[i],S[j]=S[j],S[i]
    i=j=0; out=bytearray()
    for c in data:
        i=(i+1)%256; j=(j+S[i])%256; S[i],S[j]=S[j],S[i]
        out.append(c ^ S[(S[i]+S[j])%256])
    return bytes(out)
cr=bytes(range(32)); sr=bytes(range(0x20,0x40))
def salted(s,i): return md5(s, sha(i, s, cr, sr))
pre=cr[:24]+sr[:24]
master=salted(pre,b'A')+salted(pre,b'BB')+salted(pre,b'CCC')
blob=salted(master,b'X')+salted(master,b'YY')+salted(master,b'ZZZ')
mac=blob[:16]
fin=lambda k: md5(k,cr,sr)
s2c=fin(blob[16:32]); c2s=fin(blob[32:48])
pad1=b'\x36'*40; pad2=b'\x5c'*48
def sig(data,cnt=None):
    extra=b'' if cnt is None else cnt.to_bytes(4,'little')
    return md5(mac,pad2,sha(mac,pad1,len(data).to_bytes(4,'little'),data,extra))[:8]
def upd(init,cur):
    t=md5(init,pad2,sha(init,pad1,cur)); return rc4(t,t)
print(mac.hex(), s2c.hex(), c2s.hex(), sig(b'latlab').hex(), sig(b'latlab',5).hex(), upd(s2c,s2c).hex())
