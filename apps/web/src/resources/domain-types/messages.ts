export const en = {
  resources: {
    'domain-types': {
      name: 'Domain type |||| Domain types',
      fields: { id: 'ID', type: 'Type code', name: 'Name', domain_id: 'Group', domains: 'Groups of this type' },
    },
  },
  domain_types: {
    title: 'Domain types',
    create: 'New domain type',
    edit: 'Domain type',
    delete: 'Delete',
    project_wide: 'Whole project',
    in_use: '%{smart_count} group |||| %{smart_count} groups',
  },
};

export const ru: typeof en = {
  resources: {
    'domain-types': {
      name: 'Тип группы |||| Типы групп',
      fields: { id: 'ID', type: 'Код типа', name: 'Название', domain_id: 'Группа', domains: 'Группы этого типа' },
    },
  },
  domain_types: {
    title: 'Типы групп',
    create: 'Новый тип группы',
    edit: 'Тип группы',
    delete: 'Удалить',
    project_wide: 'Весь проект',
    in_use: '%{smart_count} группа |||| %{smart_count} группы |||| %{smart_count} групп',
  },
};
