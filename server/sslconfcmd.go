package server

import (
	"crypto/tls"
	"errors"
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

// opensslOnlyCommands are the SSL_CONF commands that mosaic cannot map
// onto Go's TLS settings.
var opensslOnlyCommands = map[string]bool{
	"Ciphersuites": true, "Options": true, "SignatureAlgorithms": true, "ClientSignatureAlgorithms": true,
	"NumTickets": true, "RecordPadding": true, "VerifyMode": true, "ClientCAFile": true, "ClientCAPath": true,
	"ChainCAFile": true, "ChainCAPath": true, "VerifyCAFile": true, "VerifyCAPath": true, "RequestCAFile": true,
	"RequestCAPath": true, "ServerInfoFile": true, "DHParameters": true, "Certificate": true, "PrivateKey": true,
	"Protocol": true, "ECDHParameters": true,
}

// CheckConfCommand checks an OpenSSL configuration command "name value",
// of ssl_conf_command or of the proxy's *_ssl_conf_command (NGINX gives
// both contexts the same commands). It reports whether ApplyConfCommand
// maps it onto Go's settings (CipherString, Groups and Curves,
// MinProtocol and MaxProtocol); a command OpenSSL knows that Go has no
// setting for is not an error but applies nothing; one OpenSSL does not
// know, or a value it refuses, is an error.
func CheckConfCommand(name, value string) (applies bool, err error) {
	if name == "CipherString" || name == "Groups" || name == "Curves" || name == "MinProtocol" || name == "MaxProtocol" {
		if err := ApplyConfCommand(&tls.Config{}, name, value); err != nil {
			return false, err
		}
		return true, nil
	}
	if !opensslOnlyCommands[name] {
		return false, errors.New("unknown command")
	}
	return false, nil
}

// setConfCommand reads "ssl_conf_command name value": several lines add
// up, and a level with none inherits its parent's, as NGINX merges them.
func setConfCommand(c *Cmd) error {
	name, value := c.Args[0], c.Args[1]
	applies, err := CheckConfCommand(name, value)
	if err != nil {
		return c.Errorf("SSL_CONF_cmd(%q, %q) failed: %v", name, value, err)
	}
	if !applies {
		c.Notice(fmt.Sprintf("ignoring \"ssl_conf_command\" %s: Go's TLS stack has no such setting", name))
		return nil
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

// applyConfCommand applies one ssl_conf_command line to tc.
func applyConfCommand(tc *tls.Config, cmd confCommand) error {
	return ApplyConfCommand(tc, cmd.name, cmd.value)
}

// ApplyConfCommand applies to tc a command that CheckConfCommand says
// applies; it changes nothing for the others.
func ApplyConfCommand(tc *tls.Config, name, value string) error {
	cmd := confCommand{name: name, value: value}
	switch cmd.name {
	case "CipherString":
		ids, _, _, err := ParseCiphers(cmd.value)
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
