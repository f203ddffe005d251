; Rust definitions for the auto-fix code index.
; Captures: @class (struct, enum, union, trait) / @function / @method (the definition node), @scope (a
; module: its name prefixes the names inside it, it is no unit itself), @name, @bases (a trait's
; supertraits), @receiver (the type an impl block is for), @attribute (fields and variants).

(struct_item
  name: (type_identifier) @name) @class

(enum_item
  name: (type_identifier) @name) @class

(union_item
  name: (type_identifier) @name) @class

(trait_item
  name: (type_identifier) @name
  bounds: (trait_bounds)? @bases) @class

(mod_item
  name: (identifier) @name
  body: (declaration_list)) @scope

; fn in an impl block: a method of the type the block is for (`impl Display for Point` → Point).
(impl_item
  type: (_) @receiver
  body: (declaration_list
    (function_item
      name: (identifier) @name) @method))

(function_item
  name: (identifier) @name) @function

; fn declared in a trait without a body
(function_signature_item
  name: (identifier) @name) @function

; macro_rules! name { ... }
(macro_definition
  name: (identifier) @name) @function

(field_declaration_list (field_declaration) @attribute)
(enum_variant_list (enum_variant) @attribute)
