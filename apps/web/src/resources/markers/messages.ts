export const en = {
  resources: {
    markers: {
      name: 'Marker |||| Markers',
      fields: {
        id: 'ID',
        name: 'Name',
        color: 'Colour',
        domain_id: 'Group',
        users_count: 'Users',
        created_at: 'Created',
        search: 'Search',
      },
    },
  },
  markers: {
    title: 'Markers',
    create_title: 'New marker',
    edit_title: 'Marker %{name}',
    hint: 'Markers are coloured labels put on users (a concierge, a tenant with a guide dog…), shown in the users list.',
    color_hint: 'Pick a colour, or type it as #rrggbb',
    delete_title: 'Delete marker',
    delete_confirm: 'Delete the marker %{name}? It is taken off every user who has it.',
  },
};

export const ru: typeof en = {
  resources: {
    markers: {
      name: 'Метка |||| Метки',
      fields: {
        id: 'ID',
        name: 'Название',
        color: 'Цвет',
        domain_id: 'Группа',
        users_count: 'Пользователей',
        created_at: 'Создана',
        search: 'Поиск',
      },
    },
  },
  markers: {
    title: 'Метки',
    create_title: 'Новая метка',
    edit_title: 'Метка %{name}',
    hint: 'Метки — цветные ярлыки пользователей (консьерж, жилец с собакой-поводырём…), видные в списке пользователей.',
    color_hint: 'Выберите цвет или введите его как #rrggbb',
    delete_title: 'Удаление метки',
    delete_confirm: 'Удалить метку %{name}? Она будет снята со всех пользователей.',
  },
};
