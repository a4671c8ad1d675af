package main

import (
	"reflect"
	"strings"
)

// Why: kong builds its model of the whole CLI by reflection before it
// reads an argument, and that model (13 commands, their flags, their help
// interpolated) costs more of a short process's life than lint's own
// work on a small workspace. When the first argument names a command, a
// grammar holding only that command is built instead: the same struct
// fields with the same tags, so flags, help and errors are kong's own.
// Top-level help, global flags first, and `completion` (which walks the
// whole model) use the full CLI.

// commandGrammar returns a pointer to a new struct with Globals and only
// the command field named name, and the Globals inside it; ok is false
// when name is not a command that can be served alone.
func commandGrammar(name string) (grammar any, globals *Globals, ok bool) {
	if name == "" || name == "completion" {
		return nil, nil, false
	}
	t := reflect.TypeFor[CLI]()
	var fields []reflect.StructField
	for f := range t.Fields() {
		if f.Anonymous {
			// StructOf cannot embed; kong's embed tag flattens the same way.
			fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: `embed:""`})
			continue
		}
		if _, isCmd := f.Tag.Lookup("cmd"); isCmd && commandName(f) == name {
			fields = append(fields, f)
		}
	}
	if len(fields) != 2 {
		return nil, nil, false
	}
	v := reflect.New(reflect.StructOf(fields))
	return v.Interface(), v.Elem().Field(0).Addr().Interface().(*Globals), true
}

// commandName is the name kong gives a command field.
func commandName(f reflect.StructField) string {
	if n := f.Tag.Get("name"); n != "" {
		return n
	}
	return strings.ToLower(f.Name)
}
