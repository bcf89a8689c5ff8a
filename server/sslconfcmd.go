package server

import (
	"crypto/tls"
	"fmt"

	"github.com/mosaic-edge/mosaic/conf"
)

// ssl_conf_command passes OpenSSL configuration commands (SSL_CONF_cmd).
// Those with a Go equivalent take effect, after the other directives as
// in NGINX (so they override ssl_ciphers, ssl_ecdh_curve and
// ssl_protocols): CipherString, Groups and Curves, MinProtocol and
// MaxProtocol. The other commands OpenSSL knows load with a notice (Go
// has no such setting: Ciphersuites, Options, SignatureAlgorithms,
// NumTickets, ...); a name OpenSSL does not know is refused, as
// SSL_CONF_cmd refuses it.

// confCommand is one ssl_conf_command line.
type confCommand struct {
	name, value string
	at          *conf.Directive
}

// opensslOnlyCommands are the server-side SSL_CONF commands that mosaic
// cannot map onto Go's TLS settings.
var opensslOnlyCommands = map[string]bool{
	"Ciphersuites": true, "Options": true, "SignatureAlgorithms": true, "ClientSignatureAlgorithms": true,
	"NumTickets": true, "RecordPadding": true, "VerifyMode": true, "ClientCAFile": true, "ClientCAPath": true,
	"ChainCAFile": true, "ChainCAPath": true, "VerifyCAFile": true, "VerifyCAPath": true, "RequestCAFile": true,
	"RequestCAPath": true, "ServerInfoFile": true, "DHParameters": true, "Certificate": true, "PrivateKey": true,
	"Protocol": true, "ECDHParameters": true,
}

// setConfCommand reads "ssl_conf_command name value": several lines add
// up, and a level with none inherits its parent's, as NGINX merges them.
func setConfCommand(c *Cmd) error {
	name, value := c.Args[0], c.Args[1]
	switch {
	case name == "CipherString" || name == "Groups" || name == "Curves" || name == "MinProtocol" || name == "MaxProtocol":
		if err := applyConfCommand(&tls.Config{}, confCommand{name: name, value: value}); err != nil {
			return c.Errorf("SSL_CONF_cmd(%q, %q) failed: %v", name, value, err)
		}
	case opensslOnlyCommands[name]:
		c.Notice(fmt.Sprintf("ignoring \"ssl_conf_command\" %s: Go's TLS stack has no such setting", name))
		return nil
	default:
		return c.Errorf("SSL_CONF_cmd(%q, %q) failed: unknown command", name, value)
	}
	s := &c.Loc().(*sslLoc).confCommands
	s.V = append(s.V, confCommand{name: name, value: value, at: c.Directive})
	s.Set = true
	return nil
}

// confVersions are OpenSSL's protocol names for MinProtocol and
// MaxProtocol ("None" lifts the bound).
var confVersions = map[string]uint16{"None": 0, "TLSv1": tls.VersionTLS10, "TLSv1.1": tls.VersionTLS11,
	"TLSv1.2": tls.VersionTLS12, "TLSv1.3": tls.VersionTLS13}

// applyConfCommand applies one command with a Go equivalent to tc.
func applyConfCommand(tc *tls.Config, cmd confCommand) error {
	switch cmd.name {
	case "CipherString":
		ids, _, err := parseCiphers(cmd.value)
		if err != nil {
			return err
		}
		tc.CipherSuites = ids
	case "Groups", "Curves":
		ids, _, err := parseCurves(cmd.value)
		if err != nil {
			return err
		}
		tc.CurvePreferences = ids
	case "MinProtocol", "MaxProtocol":
		v, ok := confVersions[cmd.value]
		if !ok {
			return fmt.Errorf("unknown protocol %q", cmd.value)
		}
		if cmd.name == "MinProtocol" {
			tc.MinVersion = v
		} else {
			tc.MaxVersion = v
		}
	}
	return nil
}
